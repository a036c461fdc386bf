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
import { assertBlockingSafe, checkedJobId, checkedQueueName, queuePrefix } from './bull-job-checks.ts';
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
  const state = openState(options);
  const { fair } = state;
  return {
    add: (queue, name, data, addOptions = {}) => addJob(state, queue, { name, data }, addOptions),
    consume: (queue, handler, consumeOptions = {}) => consumeJobs(state, queue, handler, consumeOptions),
    async jobState(queue, jobId) {
      const fairOps = fair.get(queue);
      if (fairOps) return fairOps.state(checkedJobId(jobId));
      const jobState = await queueFor(state, queue).getJobState(checkedJobId(jobId));
      if (jobState === 'unknown') return 'missing';
      return jobState === 'completed' || jobState === 'failed' ? 'ended' : 'pending';
    },
    remove: async (queue, jobId) =>
      fair.get(queue)?.remove(checkedJobId(jobId)) ??
        (await queueFor(state, queue).remove(checkedJobId(jobId))) === 1,
    counts: async (queue) => fair.get(queue)?.counts() ?? countJobs(queueFor(state, queue)),
    close: () => closeAll(state),
  };
}

/** What the methods of one job queue share: its context, its queues, Workers and fair queues, what it keeps. */
interface JobQueueState extends BullContext {
  /** The connection opened from a URL (closed by `close()`); undefined for a shared one. */
  owned?: Redis;
  keepCompleted: number;
  keepFailed: { count: number; ageSeconds: number };
  /** BullMQ queues by name, created on first use. */
  queues: Map<string, Queue>;
  workers: Set<Worker>;
  /** The fair queues' operations by name. */
  fair: Map<string, FairQueueOps>;
  /** The running consumers of fair queues. */
  fairStops: Set<{ stop(): Promise<void> }>;
}

/** Opens (or takes) the connection and sets the queue's state up (defaults: keep 1000 completed, 1000 failed 7 d). */
function openState(options: BullJobQueueOptions): JobQueueState {
  const owned = typeof options.connection === 'string'
    ? new Redis(options.connection, { maxRetriesPerRequest: null })
    : undefined;
  const connection = owned ?? (options.connection as RedisConnection);
  assertBlockingSafe(connection);
  const onError = options.onError ?? (() => {});
  owned?.on('error', onError);
  const prefix = queuePrefix(options.prefix ?? 'cairn', connection instanceof Cluster);
  return {
    connection,
    prefix,
    onError,
    ...(options.onFailed ? { onFailed: options.onFailed } : {}),
    ...(options.failedData ? { failedData: options.failedData } : {}),
    owned,
    keepCompleted: options.keepCompleted ?? 1000,
    keepFailed: options.keepFailed ?? { count: 1000, ageSeconds: 7 * 86_400 },
    queues: new Map(),
    workers: new Set(),
    fair: new Map<string, FairQueueOps>(
      (options.fairQueues ?? []).map((
        name,
      ) => [name, fairQueueOps(connection, prefix, checkedQueueName(name), options.fairLeaseMs)]),
    ),
    fairStops: new Set(),
  };
}

/** The BullMQ queue `name`, created on first use with the kept-jobs bounds. */
function queueFor(state: JobQueueState, name: string): Queue {
  let queue = state.queues.get(checkedQueueName(name));
  if (queue === undefined) {
    const defaultJobOptions = {
      attempts: 1,
      removeOnComplete: { count: state.keepCompleted },
      removeOnFail: { count: state.keepFailed.count, age: state.keepFailed.ageSeconds },
    };
    queue = new Queue(name, { connection: state.connection, prefix: state.prefix, defaultJobOptions });
    queue.on('error', state.onError);
    state.queues.set(name, queue);
  }
  return queue;
}

/** Adds `job` to `queue` (a fair queue's own add, or BullMQ's with its job id and delay); returns the job's id. */
async function addJob(
  state: JobQueueState,
  queue: string,
  job: { name: string; data: unknown },
  addOptions: JobAddOptions,
): Promise<string> {
  const fairOps = state.fair.get(queue);
  if (fairOps) return addFair(fairOps, queue, job, addOptions);
  const jobId = addOptions.jobId === undefined ? undefined : checkedJobId(addOptions.jobId);
  const added = await queueFor(state, queue).add(job.name, job.data, {
    ...(jobId ? { jobId } : {}),
    ...(addOptions.delayMs ? { delay: addOptions.delayMs } : {}),
  });
  return String(added.id);
}

/** Starts a consumer of `queue`: a BullMQ Worker, or a fair queue's worker (./fair-worker.ts). */
function consumeJobs(
  state: JobQueueState,
  queue: string,
  handler: JobHandler,
  consumeOptions: ConsumeOptions,
): { stop(): Promise<void> } {
  const concurrency = consumeOptions.concurrency ?? 1;
  const fairOps = state.fair.get(queue);
  if (!fairOps) return startWorker(state, state.workers, { queue, handler, concurrency });
  const onFailed = (job: JobView, error: unknown) => reportFailure(state, queue, job, error);
  const { connection, onError } = state;
  const started = startFairWorker({ connection, ops: fairOps, handler, concurrency, onFailed, onError });
  const stop = { stop: () => (state.fairStops.delete(stop), started.stop()) };
  state.fairStops.add(stop);
  return stop;
}

/** Stops every consumer (running jobs end first), closes the queues, and quits an owned connection. */
async function closeAll(state: JobQueueState): Promise<void> {
  const { fairStops, workers, queues, owned } = state;
  await Promise.all([...fairStops].map((stop) => stop.stop()));
  fairStops.clear();
  await Promise.all([...workers].map((worker) => worker.close()));
  workers.clear();
  await Promise.all([...queues.values()].map((queue) => queue.close()));
  queues.clear();
  if (owned !== undefined) await owned.quit().catch(() => owned.disconnect());
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
type ConsumeOptions = NonNullable<Parameters<JobQueue['consume']>[2]>;
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
