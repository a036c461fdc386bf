/**
 * The data a semantic project's planes use: what the query engine's cache must keep. Every other data build in the
 * cache (of an older publish, an older save, a deleted project) is unused and is removed (docs/decisions.md D18 § 8).
 *
 * Source: spec/semantic-query-service.md § What the service does (2), § States (production build, source files).
 */
import { isPlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { dataSetOf, readPublishedBuild } from './planes.ts';
import { collections, type ProjectRecord } from './records.ts';
import { readSourceSnapshot } from './sources.ts';

/**
 * The data keys (see `dataSetOf`) of every project's published build and latest saved sources.
 * A published build missing from the object store adds nothing (its plane cannot be served either).
 * @throws whatever the stores throw: the caller then keeps every build (nothing is known to be unused)
 *
 * Source: spec/semantic-query-service.md § What the service does (2)
 */
export async function liveDataKeys(deps: Pick<SemanticDeps, 'docs' | 'objects' | 'ids'>): Promise<Set<string>> {
  const projects = await deps.docs.collection<ProjectRecord>(collections.projects).find({});
  const keys = new Set<string>();
  for (const project of projects) {
    const saved = await readSourceSnapshot(deps, project);
    keys.add((await dataSetOf(deps, saved.data)).key);
    const published = await readPublishedBuild(deps, project).catch((error: unknown) => {
      if (isPlatformError(error, 'build_missing')) return undefined;
      throw error;
    });
    if (published) keys.add((await dataSetOf(deps, published.data)).key);
  }
  return keys;
}
