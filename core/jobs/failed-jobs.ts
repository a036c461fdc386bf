/**
 * What the operator keeps of a failed job once the queue store drops its payload: queue, job name and id, the
 * identifiers of the firing, turn or operation it carried, the reason and the time; never the payload. The
 * collection `failed_jobs` is bounded: at most `kept` records and none older than `days` (both trimmed at each
 * record and by the dispatcher's retention sweep).
 *
 * Source: docs/architecture.md § Queues and collections (failed jobs); platform-service.md § Processes (dispatcher).
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';

/** The collection of failure records. */
export const FAILED_JOBS_COLLECTION = 'failed_jobs';
/** Version of a failure record's shape. */
export const failedJobSchemaVersion = 1 as const;

/** Fields of a job's data that name what it was about (copied when they are short strings or numbers). */
export const FAILED_JOB_ID_FIELDS = [
  'turnId',
  'sessionId',
  'operationId',
  'firingId',
  'deliveryId',
  'scope',
  'agentId',
  'environment',
  'connection',
  'workflow',
  'trigger',
  'address',
  'slot',
  'requestId',
  'id',
] as const;
/** The longest reason or identifier kept (characters); longer ones are cut with an ellipsis. */
export const FAILED_JOB_TEXT_MAX = 300;

/** One failure record (collection `failed_jobs`, `_id` = `<queue>:<job id>`). */
export interface FailedJobRecord {
  _id: string;
  schemaVersion: typeof failedJobSchemaVersion;
  queue: string;
  /** The job's name, e.g. `webhook`, `turn`. */
  name: string;
  jobId: string;
  /** Identifiers from the job's data ({@link FAILED_JOB_ID_FIELDS}, also inside a `firing` or `target` object). */
  ids: Record<string, string>;
  /** The error's message, at most {@link FAILED_JOB_TEXT_MAX} characters. */
  reason: string;
  at: Date;
}

/** A job that failed, as the queue reports it. */
export interface JobFailure {
  queue: string;
  name: string;
  id: string;
  data: unknown;
  error: Error;
}

/** The bound of the collection: records kept at most, and their days. */
export interface FailedJobLimits {
  kept: number;
  days: number;
}

const cut = (text: string) => (
  text.length > FAILED_JOB_TEXT_MAX ? `${text.slice(0, FAILED_JOB_TEXT_MAX - 1)}…` : text
);

/**
 * The identifiers a job's data carries, never its other content: {@link FAILED_JOB_ID_FIELDS} at the top and in a
 * nested `firing` or `target` object (prefixed `firing.` / `target.`).
 */
export function failedJobIds(data: unknown): Record<string, string> {
  const ids: Record<string, string> = {};
  const take = (value: unknown, prefix: string) => {
    if (value === null || typeof value !== 'object') return;
    for (const field of FAILED_JOB_ID_FIELDS) {
      const item = (value as Record<string, unknown>)[field];
      if (typeof item === 'string' || typeof item === 'number') ids[`${prefix}${field}`] = cut(String(item));
    }
  };
  take(data, '');
  if (data !== null && typeof data === 'object') {
    take((data as Record<string, unknown>).firing, 'firing.');
    take((data as Record<string, unknown>).target, 'target.');
  }
  return ids;
}

/**
 * Declares the index on `at` the trimming sorts by. Idempotent. (No expiry index: its age would be fixed at its
 * first creation, and PLATFORM_FAILED_JOBS_DAYS may change; {@link trimFailedJobs} removes old records instead.)
 */
export async function ensureFailedJobIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection<FailedJobRecord>(FAILED_JOBS_COLLECTION).createIndex({ at: 1 });
}

/**
 * Records a failure (a second failure of the same job replaces the first), then removes the oldest records beyond
 * `limits.kept` and those older than `limits.days`.
 */
export async function recordFailedJob(
  deps: { docs: DocumentStore; clock: Clock },
  failure: JobFailure,
  limits: FailedJobLimits,
): Promise<FailedJobRecord> {
  const failed = deps.docs.collection<FailedJobRecord>(FAILED_JOBS_COLLECTION);
  const at = deps.clock.now();
  const record: FailedJobRecord = {
    _id: `${failure.queue}:${failure.id}`,
    schemaVersion: failedJobSchemaVersion,
    queue: failure.queue,
    name: cut(failure.name),
    jobId: cut(failure.id),
    ids: failedJobIds(failure.data),
    reason: cut(failure.error.message || failure.error.name),
    at,
  };
  const { _id, ...fields } = record;
  await failed.updateOne({ _id }, { $set: fields }, { upsert: true });
  await trimFailedJobs(deps, limits);
  return record;
}

/** Removes failure records older than `limits.days`, then the oldest beyond `limits.kept`; returns how many. */
export async function trimFailedJobs(
  deps: { docs: DocumentStore; clock: Clock },
  limits: FailedJobLimits,
): Promise<number> {
  const failed = deps.docs.collection<FailedJobRecord>(FAILED_JOBS_COLLECTION);
  const cutoff = new Date(deps.clock.now().getTime() - limits.days * 86_400_000);
  let removed = await failed.deleteMany({ at: { $lt: cutoff } });
  const excess = (await failed.countDocuments({})) - limits.kept;
  if (excess > 0) {
    const oldest = await failed.find({}, { sort: { at: 1, _id: 1 }, limit: excess });
    removed += await failed.deleteMany({ _id: { $in: oldest.map((r) => r._id) } });
  }
  return removed;
}

/** The newest failure records first (at most `limit`, default 100), for an operator. */
export async function listFailedJobs(docs: DocumentStore, limit = 100): Promise<FailedJobRecord[]> {
  return docs.collection<FailedJobRecord>(FAILED_JOBS_COLLECTION).find({}, { sort: { at: -1, _id: 1 }, limit });
}
