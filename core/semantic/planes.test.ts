/**
 * assemblePlane serves a cached production plane without reading the build again, and reads the
 * new build once a publish has changed the project's build key.
 */
import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '../ports/object-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { type AssembledPlane, assemblePlane, type PublishedBuild } from './planes.ts';
import type { ProjectRecord } from './records.ts';

const model = (name: string) => `version: "0.1.1"\nsemantic_model:\n  - name: ${name}\n    datasets: []\n`;

/** Names of the plane's models, valid or not. */
const namesOf = (plane: AssembledPlane) => [...plane.models.map((m) => m.name), ...plane.problems.map((p) => p.model)];

describe('assemblePlane', () => {
  it('reads a published build once, and the next build after a publish', async () => {
    const inner = createMemoryObjectStore();
    const reads: string[] = [];
    const objects: ObjectStore = new Proxy(inner, {
      get: (target, key) => (key === 'get'
        ? (k: string) => {
          reads.push(k);
          return target.get(k);
        }
        : Reflect.get(target, key, target)),
    });
    const build = (revision: number, name: string): PublishedBuild => ({
      revision,
      commitId: `c${revision}`,
      models: { [`${name}.yaml`]: model(name) },
      data: [],
      savedAt: '2026-11-23T00:00:00Z',
      buildId: `b${revision}`,
      publishedAt: '2026-11-23T00:00:00Z',
    });
    await inner.put('builds/b1.json', new TextEncoder().encode(JSON.stringify(build(1, 'first'))));
    await inner.put('builds/b2.json', new TextEncoder().encode(JSON.stringify(build(2, 'second'))));
    const deps = {
      objects,
      ids: {
        newId: () => 'x',
        randomBytes: (n: number) => new Uint8Array(n),
        sha256Hex: async (d: string | Uint8Array) => `h${String(d).length}`,
      },
    };
    const project = {
      _id: 'p1',
      slug: 'p',
      publishedBuildKey: 'builds/b1.json',
      createdAt: new Date(0),
    } as unknown as ProjectRecord;
    const cache = new Map<string, AssembledPlane>();
    const first = await assemblePlane(deps, project, 'production', cache);
    const again = await assemblePlane(deps, project, 'production', cache);
    expect(again).toBe(first);
    expect(namesOf(first)).toEqual(['first']);
    expect(reads).toEqual(['builds/b1.json']);
    const republished = await assemblePlane(
      deps,
      { ...project, publishedBuildKey: 'builds/b2.json' } as ProjectRecord,
      'production',
      cache,
    );
    expect(namesOf(republished)).toEqual(['second']);
    expect(reads).toEqual(['builds/b1.json', 'builds/b2.json']);
  });
});
