/**
 * Builds at publish (docs/decisions.md D18 § 7): the watch reads what the API published (the real
 * `publish` over the document and object stores) and asks the query engine port to prepare every queryable model of
 * the new production build once, with its project and organization as the owner; nothing is asked for a build seen
 * before, a model without view_query, or a publish older than the watch.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbParser } from '../adapters/duckdb/parser.ts';
import { recordingLogger } from '../adapters/duckdb/test-fixtures.ts';
import type { QueryEngine, ScopeOwner, ScopeTarget } from '../ports/query-engine.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { SemanticDeps } from './deps.ts';
import { publish } from './planes.ts';
import { createProject } from './projects.ts';
import type { ProjectRecord } from './records.ts';
import { sourceKeys } from './sources.ts';
import { watchPublishes } from './publish-watch.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

let now = new Date('2026-12-01T10:00:00Z');
let counter = 0;
const deps: SemanticDeps = {
  docs: createMemoryDocumentStore(),
  objects: createMemoryObjectStore(),
  clock: { now: () => now },
  ids: {
    newId: () => `id${(counter += 1)}`,
    randomBytes: (n) => new Uint8Array(n),
    sha256Hex: async (d) => createHash('sha256').update(d).digest('hex'),
  },
};
const prepared: { target: ScopeTarget; owner?: ScopeOwner }[] = [];
/** The query engine port: the real parser, no execution, preparations recorded. */
const engine: QueryEngine = {
  parse: (sql, partition) => parser.parse(sql, partition),
  execute: () => Promise.reject(new Error('no query runs here')),
  close: async () => undefined,
  prepareScope: (target, owner) => void prepared.push({ target, owner }),
};

const extension = (viewQuery: string) =>
  `        custom_extensions:\n          - vendor_name: COMMON\n            data: '{"view_query": "${viewQuery}"}'\n`;
const model = (name: string, viewQuery?: string) =>
  `version: "0.1.1"
semantic_model:
  - name: ${name}
    description: ${name}.
    datasets:
      - name: notes
        source: data.notes
${viewQuery ? extension(viewQuery) : ''}`;

/** Saves `models` as the project's sources and publishes them at `at`, as the API does. */
async function publishAt(project: ProjectRecord, at: string, models: Record<string, string>): Promise<void> {
  const snapshot = { revision: counter, commitId: `c${counter}`, models, data: [], savedAt: at };
  await deps.objects.put(sourceKeys.snapshot(project._id), new TextEncoder().encode(JSON.stringify(snapshot)));
  now = new Date(at);
  await publish(deps, project);
}

/** Waits until the engine has been asked `count` preparations in all (they are started in the background). */
async function preparations(count: number): Promise<string[]> {
  while (prepared.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
  return prepared.map(({ target, owner }) => `${owner?.orgId}/${owner?.projectId}: ${target.views[0].sql}`);
}

describe('watchPublishes', () => {
  it('prepares each new production build of a project once, its queryable models only', async () => {
    const old = await createProject(deps, { orgId: 'org-1', slug: 'old' });
    await publishAt(old, '2026-12-01T09:00:00Z', { 'old.yaml': model('old', 'SELECT 0 AS id') });
    const watch = watchPublishes(deps, {
      engine,
      logger: recordingLogger(),
      since: new Date('2026-12-01T09:59:00Z'),
      everyMs: 3_600_000,
    });
    const project = await createProject(deps, { orgId: 'org-1', slug: 'sales' });
    const models = { 'a.yaml': model('a', 'SELECT 1 AS id'), 'b.yaml': model('b') };
    await publishAt(project, '2026-12-01T10:00:01Z', models);
    await watch.look();
    expect(await preparations(1)).toEqual([`org-1/${project._id}: SELECT 1 AS id`]);
    await watch.look();
    await publishAt(project, '2026-12-01T10:00:05Z', { 'a.yaml': model('a', 'SELECT 2 AS id') });
    await watch.look();
    expect(await preparations(2)).toEqual([
      `org-1/${project._id}: SELECT 1 AS id`,
      `org-1/${project._id}: SELECT 2 AS id`,
    ]);
    await watch.stop();
  });
});
