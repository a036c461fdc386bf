/**
 * The consumer of a fair queue (./fair-queue.ts): `concurrency` loops that each take the next job by the fairness
 * rule, run the handler while renewing the job's lease, and end it. An idle loop waits for the queue's wake channel
 * (one subscriber connection per consumer) or 1 s, whichever comes first, so a lost notification delays a job by at
 * most a second. `stop()` takes no more jobs and waits for the running handlers.
 *
 * Source: docs/decisions.md D24 § 1; core/ports/job-queue.ts (consume).
 */
import type { JobQueue } from '../../ports/job-queue.ts';
import type { FairQueueOps } from './fair-queue.ts';
import type { RedisConnection } from './open-redis.ts';

/** Longest an idle loop waits before it looks again without a notification (ms). */
const IDLE_LOOK_MS = 1_000;

type Handler = Parameters<JobQueue['consume']>[1];

/** What {@link startFairWorker} needs. */
export interface FairWorkerStart {
  connection: RedisConnection;
  ops: FairQueueOps;
  handler: Handler;
  concurrency: number;
  /** Called with the job and what its handler threw (the job is ended, not kept). */
  onFailed(job: { id: string; name: string; data: unknown }, error: unknown): Promise<void>;
  onError(error: Error): void;
}

/** Starts consuming; `stop()` resolves when every running handler has ended. */
export function startFairWorker(start: FairWorkerStart): { stop(): Promise<void> } {
  const { ops, handler, onError } = start;
  let stopping = false;
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  const subscriber = (start.connection as { duplicate(): RedisConnection }).duplicate();
  subscriber.on('error', onError);
  subscriber.on('message', wakeAll);
  void subscriber.subscribe(ops.wakeChannel).catch((error: Error) => onError(error));
  const idle = () =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, IDLE_LOOK_MS);
      sleepers.add(wake);
    });
  const runOne = async (job: { id: string; data: unknown }) => {
    const { name, data } = job.data as { name: string; data: unknown };
    const view = { id: job.id, name, data };
    const renewal = setInterval(() => void ops.renew(job.id).catch(onError), ops.leaseMs / 3);
    try {
      await handler(view);
    } catch (error) {
      await start.onFailed(view, error).catch(onError);
    } finally {
      clearInterval(renewal);
      await ops.done(job.id).catch(onError);
    }
  };
  const loop = async () => {
    while (!stopping) {
      // A refused take (the store away) waits like an empty queue, then looks again.
      const job = await ops.take().catch((error: Error) => (onError(error), undefined));
      if (job === undefined) await idle();
      else await runOne(job);
    }
  };
  const loops = Array.from({ length: Math.max(1, start.concurrency) }, loop);
  return {
    async stop() {
      stopping = true;
      wakeAll();
      await Promise.all(loops);
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
