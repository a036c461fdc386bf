/**
 * The {@link JobQueue} port on BullMQ: one BullMQ queue per name (created on first use), one Worker
 * per `consume`; failed jobs kept with a bound (count and age) and reported to `onFailed` (which keeps what an
 * operator needs without the payload: core/jobs/failed-jobs.ts).
 *
 * Source: spec/platform-service.md § Processes (dispatcher consumes every queue);
 * docs/architecture.md § Ports and adapters (JobQueue: Redis via BullMQ + ioredis).
 */
import { type Job, Queue, Worker } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import type { JobAddOptions, JobPlace, JobQueue } from '../../ports/job-queue.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { type FairQueueOps, fairQueueOps } from './fair-queue.ts';
import { startFairWorker } from './fair-worker.ts';
import type { RedisConnection } from './open-redis.ts';

/**
 * Options of {@link createBullJobQueue}.
 *
 * Source: core/ports/job-queue.ts; docs/architecture.md § Ports and adapters (JobQueue).
 */
export interface BullJobQueueOptions {
  /**
   * A connection from `openRedis` (shared, not closed by `close()`; it must have
   * `maxRetriesPerRequest: null`), or a `redis://` / `rediss://` URL for a connection of its own.
   */
  connection: RedisConnection | string;
  /** Key prefix of every queue; default `cairn`. On a cluster it is wrapped in `{…}` (one hash slot) unless it holds
   * braces. */
  prefix?: string;
  /** Completed jobs kept per queue, newest first; default 1000. */
  keepCompleted?: number;
  /**
   * Failed jobs kept per queue (with the data `failedData` leaves), newest first: at most `count` (default 1000) and
   * none older than
   * `ageSeconds` (default 7 days). A store that never evicts fills up otherwise (platform-service.md § Limits).
   */
  keepFailed?: { count: number; ageSeconds: number };
  /**
   * Called when a handler throws, before the job is failed (its errors are passed to `onError`, never to the job).
   * Source: docs/architecture.md § Queues and collections (failed jobs).
   */
  onFailed?: (failure: JobFailureView) => Promise<void> | void;
  /**
   * What a failed job keeps of its data, e.g. only the ids it names (default: all of it). A webhook payload is up to
   * 256 KiB, so 1000 failed jobs with theirs would fill the embedded store. Errors keep the data as it was.
   */
  failedData?: (data: unknown) => unknown;
  /** Receives connection and worker errors BullMQ reports; default ignores them (the connection's own listeners see
   * them too). */
  onError?: (error: Error) => void;
  /**
   * Queues kept fair (./fair-queue.ts) instead of BullMQ's order: each add carries a place, jobs are taken
   * interactive first and round robin between tenants and groups. Default none. Source: docs/decisions.md D24 § 1.
   */
  fairQueues?: readonly string[];
  /** How long a fair queue's taken job is held without a renewal (ms); default 30 000 (tests shorten it). */
  fairLeaseMs?: number;
}

/**
 * Creates the job queue. Nothing connects until the first call.
 *
 * Semantics: a job runs once (no retry); a handler that throws fails the job, which stays in the
 * failed set within `keepFailed`. `add` with a `jobId` that is still in the queue store (waiting, delayed, active, kept
 * completed or failed) returns that id and adds nothing. `stop()` waits for running handlers to finish.
 *
 * @throws PlatformError `invalid_argument` (400) at creation when a shared connection does not have
 *   `maxRetriesPerRequest: null`; from `add`/`consume`/`counts` for a queue name with `:`, and from
 *   `add` for a jobId holding `:` or written as an integer (BullMQ reserves both)
 *
 * Source: core/ports/job-queue.ts; docs/architecture.md § Ports and adapters (JobQueue).
 */
export function createBullJobQueue(options: BullJobQueueOptions): JobQueue {
  const owned = typeof options.connection === 'string'
    ? new Redis(options.connection, { maxRetriesPerRequest: null })
    : undefined;
  const connection = owned ?? (options.connection as RedisConnection);
  assertBlockingSafe(connection);
  const onError = options.onError ?? (() => {});
  owned?.on('error', onError);
  const context: BullContext = {
    connection,
    prefix: queuePrefix(options.prefix ?? 'cairn', connection instanceof Cluster),
    onError,
    ...(options.onFailed ? { onFailed: options.onFailed } : {}),
    ...(options.failedData ? { failedData: options.failedData } : {}),
  };
  const keepCompleted = options.keepCompleted ?? 1000;
  const keepFailed = options.keepFailed ?? { count: 1000, ageSeconds: 7 * 86_400 };
  const queues = new Map<string, Queue>();
  const workers = new Set<Worker>();
  const fair = new Map<string, FairQueueOps>(
    (options.fairQueues ?? []).map((
      name,
    ) => [name, fairQueueOps(connection, context.prefix, checkedQueueName(name), options.fairLeaseMs)]),
  );
  const fairStops = new Set<{ stop(): Promise<void> }>();
  const queueFor = (name: string): Queue => {
    let queue = queues.get(checkedQueueName(name));
    if (queue === undefined) {
      const defaultJobOptions = {
        attempts: 1,
        removeOnComplete: { count: keepCompleted },
        removeOnFail: { count: keepFailed.count, age: keepFailed.ageSeconds },
      };
      queue = new Queue(name, { connection, prefix: context.prefix, defaultJobOptions });
      queue.on('error', onError);
      queues.set(name, queue);
    }
    return queue;
  };
  return {
    async add(queue, name, data, addOptions = {}) {
      const fairOps = fair.get(queue);
      if (fairOps) return addFair(fairOps, queue, { name, data }, addOptions);
      const jobId = addOptions.jobId === undefined ? undefined : checkedJobId(addOptions.jobId);
      const job = await queueFor(queue).add(name, data, {
        ...(jobId ? { jobId } : {}),
        ...(addOptions.delayMs ? { delay: addOptions.delayMs } : {}),
      });
      return String(job.id);
    },
    consume(queue, handler, consumeOptions = {}) {
      const concurrency = consumeOptions.concurrency ?? 1;
      const fairOps = fair.get(queue);
      if (!fairOps) return startWorker(context, workers, { queue, handler, concurrency });
      const onFailed = (job: JobView, error: unknown) => reportFailure(context, queue, job, error);
      const started = startFairWorker({ connection, ops: fairOps, handler, concurrency, onFailed, onError });
      const stop = { stop: () => (fairStops.delete(stop), started.stop()) };
      fairStops.add(stop);
      return stop;
    },
    async jobState(queue, jobId) {
      const fairOps = fair.get(queue);
      if (fairOps) return fairOps.state(checkedJobId(jobId));
      const state = await queueFor(queue).getJobState(checkedJobId(jobId));
      if (state === 'unknown') return 'missing';
      return state === 'completed' || state === 'failed' ? 'ended' : 'pending';
    },
    remove: async (queue, jobId) =>
      fair.get(queue)?.remove(checkedJobId(jobId)) ?? (await queueFor(queue).remove(checkedJobId(jobId))) === 1,
    counts: async (queue) => fair.get(queue)?.counts() ?? countJobs(queueFor(queue)),
    async close() {
      await Promise.all([...fairStops].map((stop) => stop.stop()));
      fairStops.clear();
      await Promise.all([...workers].map((worker) => worker.close()));
      workers.clear();
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      queues.clear();
      if (owned !== undefined) await owned.quit().catch(() => owned.disconnect());
    },
  };
}

/**
 * Adds to a fair queue: the job id is required (a turn's id: a second add of it adds nothing while it waits or
 * runs); a delay is refused.
 */
async function addFair(
  ops: FairQueueOps,
  queue: string,
  job: { name: string; data: unknown },
  options: JobAddOptions,
): Promise<string> {
  if (options.jobId === undefined || options.delayMs) {
    const why = options.jobId === undefined ? 'a jobId' : 'no delay';
    throw new PlatformError('invalid_argument', `The fair queue ${queue} needs ${why}.`, { status: 400 });
  }
  const jobId = checkedJobId(options.jobId);
  await ops.add(jobId, job, options.place as JobPlace);
  return jobId;
}

/** What every Queue and Worker of one job queue share. */
interface BullContext {
  connection: RedisConnection;
  prefix: string;
  onError: (error: Error) => void;
  onFailed?: BullJobQueueOptions['onFailed'];
  failedData?: BullJobQueueOptions['failedData'];
}

/** The queue a Worker of {@link startWorker} consumes, its handler, and how many jobs it runs at once. */
interface WorkerStart {
  /** The queue's name. */
  queue: string;
  /** Handles each job; what it throws is reported (`onFailed`) and fails the job. */
  handler: JobHandler;
  /** Jobs this Worker runs at once. */
  concurrency: number;
}

/** Starts a Worker on `queue` that hands each job to `handler`; `stop` closes it after running jobs end. */
function startWorker(
  context: BullContext,
  workers: Set<Worker>,
  { queue, handler, concurrency }: WorkerStart,
): { stop(): Promise<void> } {
  const worker = new Worker(
    checkedQueueName(queue),
    async (job: Job) => {
      const view = { id: String(job.id), name: job.name, data: job.data as unknown };
      try {
        await handler(view);
      } catch (error) {
        await reportFailure(context, queue, view, error);
        if (context.failedData) await job.updateData(context.failedData(view.data)).catch(context.onError);
        throw error;
      }
    },
    { connection: context.connection, prefix: context.prefix, concurrency, autorun: true },
  );
  worker.on('error', context.onError);
  workers.add(worker);
  return {
    async stop() {
      workers.delete(worker);
      await worker.close();
    },
  };
}

type JobHandler = Parameters<JobQueue['consume']>[1];
type JobView = { id: string; name: string; data: unknown };

/** A job whose handler threw, as `onFailed` receives it (its data is the payload: keep only what is needed). */
export type JobFailureView = JobView & { queue: string; error: Error };

async function reportFailure(context: BullContext, queue: string, job: JobView, error: unknown) {
  if (!context.onFailed) return;
  try {
    await context.onFailed({ queue, ...job, error: error instanceof Error ? error : new Error(String(error)) });
  } catch (reportError) {
    context.onError(reportError as Error);
  }
}

async function countJobs(queue: Queue) {
  const counts = await queue.getJobCounts('wait', 'prioritized', 'active', 'completed', 'failed', 'delayed');
  const of = (type: string) => counts[type] ?? 0;
  return {
    waiting: of('wait') + of('prioritized'),
    active: of('active'),
    completed: of('completed'),
    failed: of('failed'),
    delayed: of('delayed'),
  };
}

/**
 * The BullMQ prefix: on a cluster every key of a queue must share one hash slot.
 *
 * Source: core/ports/job-queue.ts; docs/architecture.md § Ports and adapters (JobQueue).
 */
export function queuePrefix(prefix: string, cluster: boolean): string {
  return cluster && !prefix.includes('{') ? `{${prefix}}` : prefix;
}

function assertBlockingSafe(connection: RedisConnection): void {
  const options = connection instanceof Cluster ? connection.options.redisOptions : connection.options;
  if (options?.maxRetriesPerRequest !== null) {
    throw new PlatformError(
      'invalid_argument',
      'The queue connection needs maxRetriesPerRequest: null (openRedis sets it by default).',
      { status: 400 },
    );
  }
}

function checkedQueueName(name: string): string {
  if (name.length === 0 || name.includes(':')) {
    throw new PlatformError(
      'invalid_argument',
      `The queue name ${JSON.stringify(name)} must be non-empty and hold no ':'.`,
      { status: 400 },
    );
  }
  return name;
}

function checkedJobId(jobId: string): string {
  if (jobId.length === 0 || jobId.includes(':') || String(Number.parseInt(jobId, 10)) === jobId) {
    throw new PlatformError(
      'invalid_argument',
      `The jobId ${JSON.stringify(jobId)} must be non-empty, hold no ':' and not be an integer.`,
      { status: 400 },
    );
  }
  return jobId;
}
