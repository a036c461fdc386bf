/**
 * Improvement requests agents submit about a model (stored queries: ./stored-queries.ts, re-exported here).
 *
 * Source: spec/semantic-query-service.md § Tools (request_improvement).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { collections, type ImprovementRecord, semanticSchemaVersion } from './records.ts';

/** Stores an improvement request. Lengths are checked by the tool's input schema (200 / 2,000). */
export async function submitImprovement(
  deps: SemanticDeps,
  input: Omit<ImprovementRecord, '_id' | 'createdAt' | 'schemaVersion'>,
): Promise<ImprovementRecord> {
  const record: ImprovementRecord = {
    _id: deps.ids.newId(),
    schemaVersion: semanticSchemaVersion,
    createdAt: deps.clock.now(),
    ...input,
  };
  await deps.docs.collection<ImprovementRecord>(collections.improvements).insertOne(record);
  return record;
}

/** Improvement requests {@link listImprovements} answers when no limit is given (100). */
export const defaultImprovementsLimit = 100;
/** Most improvement requests {@link listImprovements} answers, whatever the limit asked (500). */
export const maxImprovementsLimit = 500;

/** Which improvement requests {@link listImprovements} answers: not yet done, done, or all (the default). */
export type ImprovementStatus = 'open' | 'done' | 'all';

/** The store filter of `status` within project `projectId`. */
function statusFilter(projectId: string, status: ImprovementStatus): Record<string, unknown> {
  if (status === 'open') return { projectId, doneAt: { $exists: false } };
  if (status === 'done') return { projectId, doneAt: { $exists: true } };
  return { projectId };
}

/**
 * A project's improvement requests, newest first: `limit` of them (default {@link defaultImprovementsLimit},
 * at most {@link maxImprovementsLimit}), with `status` 'open', 'done' or 'all' (default 'all'). Agents write
 * them, so the list is always capped.
 * @throws PlatformError `invalid_find_options` (400) from the store for a limit that is not a whole number
 */
export async function listImprovements(
  deps: SemanticDeps,
  projectId: string,
  options: { limit?: number; status?: ImprovementStatus } = {},
): Promise<ImprovementRecord[]> {
  const limit = Math.min(Math.max(options.limit ?? defaultImprovementsLimit, 1), maxImprovementsLimit);
  return improvementsOf(deps).find(statusFilter(projectId, options.status ?? 'all'), {
    sort: { createdAt: -1 },
    limit,
  });
}

/** Which improvement request {@link markImprovementDone} marks, by whom, and how. */
export interface ImprovementMark {
  /** The improvement request's id. */
  id: string;
  /** Who marks it (the signed-in member's email, else their subject); stored as `doneBy`. */
  by: string;
  /** True marks it done, false opens it again. Default `true`. */
  done?: boolean;
}

/**
 * Marks improvement request `id` of the project done (`done` true, the default) or open again (`done`
 * false). Idempotent: marking a done request done again keeps its first `doneAt`/`doneBy`; reopening an
 * open one changes nothing.
 * @returns the request as stored afterwards
 * @throws PlatformError `not_found` (404) naming `id` when the project has no such request
 *
 * Source: docs/decisions.md D9 (Improvement requests: list, mark done)
 */
export async function markImprovementDone(
  deps: SemanticDeps,
  projectId: string,
  { id, by, done = true }: ImprovementMark,
): Promise<ImprovementRecord> {
  const improvements = improvementsOf(deps);
  const record = await improvements.findOne({ _id: id, projectId });
  if (!record) {
    throw new PlatformError(
      'not_found',
      `No improvement request "${id}" in this project: list the improvement requests to see their ids.`,
      { status: 404 },
    );
  }
  if (done && !record.doneAt) {
    const doneAt = deps.clock.now();
    await improvements.updateOne({ _id: id, projectId }, { $set: { doneAt, doneBy: by } });
    return { ...record, doneAt, doneBy: by };
  }
  if (!done && record.doneAt) {
    await improvements.updateOne({ _id: id, projectId }, { $unset: { doneAt: true, doneBy: true } });
    const open: ImprovementRecord = { ...record };
    delete open.doneAt;
    delete open.doneBy;
    return open;
  }
  return record;
}

function improvementsOf(deps: SemanticDeps) {
  return deps.docs.collection<ImprovementRecord>(collections.improvements);
}

export { getStoredQuery, storeQuery } from './stored-queries.ts';
