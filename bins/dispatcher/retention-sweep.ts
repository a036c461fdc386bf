/**
 * The dispatcher's retention work: failed jobs kept within PLATFORM_FAILED_JOBS_KEPT / _DAYS in the queue store
 * with a failure record in `failed_jobs`, and a sweep every 10 minutes, run by one dispatcher at a time (the
 * `retention-sweep` lease), that removes finished sessions, claimed firing ids, call log entries and ended evaluation
 * runs (with their cassettes) past their retention and trims the failure records.
 *
 * Source: docs/architecture.md § Queues and collections (retention); core/config/retention-settings.ts.
 */
import type { BullJobQueueOptions } from '../../core/adapters/redis/bull-job-queue.ts';
import type { RetentionSettings } from '../../core/config/retention-settings.ts';
import { ensureFailedJobIndexes, failedJobIds, recordFailedJob, trimFailedJobs } from '../../core/jobs/failed-jobs.ts';
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { Lease } from '../../core/ports/lease.ts';
import type { ObjectStore } from '../../core/ports/object-store.ts';
import { sweepCallLog } from '../../core/semantic/call-log-retention.ts';
import { ensureRetentionIndexes, sweepSessionRetention } from '../../core/session/retention.ts';
import { aguiThreadsCollection } from '../../core/connection/agui-threads.ts';
import { sweepEvaluationRetention } from '../../core/evaluation/retention.ts';
import { designChatsCollection, designReadsCollection } from '../../core/design/design-runtime.ts';

/** How often the retention sweep runs (ms). */
export const RETENTION_SWEEP_INTERVAL_MS = 10 * 60_000;
/**
 * Collections whose documents name a session and go with it (AG-UI thread ids bound to their chat; a design chat and
 * what it read).
 */
const boundCollections = [aguiThreadsCollection, designChatsCollection, designReadsCollection];
/** The lease that lets one dispatcher sweep per interval. */
export const RETENTION_LEASE = 'retention-sweep';

/** What the retention work needs. */
export interface RetentionDeps {
  docs: DocumentStore;
  objects: ObjectStore;
  clock: Clock;
  lease: Lease;
  /** This process's lease owner name. */
  owner: string;
  retention: RetentionSettings;
  log(line: string): void;
}

/**
 * Options of the job queue: failed jobs bounded, each keeping only the ids its data names (not the payload), and
 * each failure recorded in `failed_jobs`.
 */
export function failedJobQueueOptions(
  deps: Pick<RetentionDeps, 'docs' | 'clock' | 'retention'>,
): Pick<BullJobQueueOptions, 'keepFailed' | 'onFailed' | 'failedData'> {
  const { kept, days } = deps.retention.failedJobs;
  return {
    keepFailed: { count: kept, ageSeconds: days * 86_400 },
    onFailed: async (failure) => { await recordFailedJob(deps, failure, { kept, days }); },
    failedData: (data) => ({ ids: failedJobIds(data) }),
  };
}

/**
 * One sweep, when this process takes the lease; returns the log line of what it removed (undefined when it did not
 * take the lease or removed nothing).
 */
export async function runRetentionSweep(deps: RetentionDeps): Promise<string | undefined> {
  if (!(await deps.lease.acquire(RETENTION_LEASE, deps.owner, RETENTION_SWEEP_INTERVAL_MS / 2))) return undefined;
  const { retention } = deps;
  const sessions = await sweepSessionRetention(deps, retention, { boundCollections });
  const calls = await sweepCallLog(deps, retention.callLogDays);
  const failures = await trimFailedJobs(deps, retention.failedJobs);
  const evaluations = await sweepEvaluationRetention(deps, retention);
  const total = sessions.sessions + sessions.deliveries + calls + failures + evaluations.runs;
  if (total === 0) return undefined;
  return `retention sweep removed ${sessions.sessions} session(s) (${sessions.turns} turn(s), ${sessions.messages} `
    + `message(s), ${sessions.bindings} thread or session key binding(s)) finished over ${retention.sessionDays} `
    + `days ago, ${sessions.deliveries} claimed firing id(s), `
    + `${calls} call log entr(ies), ${failures} failure record(s) and ${evaluations.runs} evaluation run(s) `
    + `(${evaluations.calls} recorded model call(s))`;
}

/** Declares the indexes and runs the sweep every {@link RETENTION_SWEEP_INTERVAL_MS}; `stop` ends it. */
export async function startRetention(deps: RetentionDeps, logError: (error: Error) => void): Promise<{ stop(): void }> {
  await ensureFailedJobIndexes(deps.docs);
  await ensureRetentionIndexes(deps.docs, boundCollections);
  const sweep = () => void runRetentionSweep(deps).then((line) => { if (line) deps.log(line); }, logError);
  const timer = setInterval(sweep, RETENTION_SWEEP_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
