/**
 * The limits the launcher enforces on a running worker from outside: its memory (resident set of its process tree,
 * every {@link WORKER_WATCHDOG_INTERVAL_MS} ms), wall time, turn time (`turnSeconds`), the hook deadlines it
 * announces on its channel, and its run's cancellation.
 *
 * Source: spec/platform-service.md § Rules 6–8; § Errors; docs/decisions.md D17 § 3.
 */
import type { WorkerRunOptions } from '../../ports/worker.ts';
import { readProcessTreeMemory } from '../runtime/process-memory.ts';
import { type EndFacts, limitMessage } from './worker-outcome.ts';

/** Interval of the resident-set watchdog, in milliseconds. */
export const WORKER_WATCHDOG_INTERVAL_MS = 50;

/** Milliseconds past a hook's or turn's own deadline before the launcher ends the worker (its own timer says first). */
export const OUTSIDE_DEADLINE_GRACE_MS = 1000;

/** Hook deadlines a worker may hold at once (child turns run hooks side by side); further ones are ignored. */
const MAX_HOOK_DEADLINES = 64;

/**
 * The running worker the limits act on.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export interface LimitedWorker {
  /** The worker's process id. */
  pid: number;
  /** Its run's options: kind, limits, cancellation signal, turn time, progress callback. */
  options: WorkerRunOptions;
  /** Ends the worker for `outcome` (the first cause wins): SIGKILL, or `signal` then SIGKILL after the grace. */
  kill(outcome: EndFacts['killedFor'], signal?: NodeJS.Signals): void;
  /** Adds a cleanup run once the worker has ended (timers and listeners). */
  onEnded(cleanup: () => void): void;
}

/**
 * Starts the memory watchdog, the wall-time and turn-time timers and the cancellation listener of `worker`; each
 * is cleared once it has ended.
 *
 * Source: spec/platform-service.md § Rules 6–8; docs/decisions.md D17 § 3
 */
export function watchWorkerLimits(worker: LimitedWorker): void {
  const { kind, limits, turnSeconds } = worker.options;
  const ceiling = limits.memoryMb * 1024 * 1024;
  const watchdog = setInterval(() => {
    void readProcessTreeMemory(worker.pid).then((memory) => {
      if (memory && memory.rssBytes > ceiling) worker.kill(limitMessage(kind, 'memory', limits));
    });
  }, WORKER_WATCHDOG_INTERVAL_MS);
  const wallTime = setTimeout(
    () => worker.kill(limitMessage(kind, 'wall time', limits)),
    limits.wallTimeSeconds * 1000,
  );
  worker.onEnded(() => clearInterval(watchdog));
  worker.onEnded(() => clearTimeout(wallTime));
  if (turnSeconds !== undefined && turnSeconds > 0 && turnSeconds < limits.wallTimeSeconds) {
    const turnMs = turnSeconds * 1000 + OUTSIDE_DEADLINE_GRACE_MS;
    const turnTime = setTimeout(() => worker.kill(limitMessage(kind, 'turn time', limits, turnSeconds)), turnMs);
    worker.onEnded(() => clearTimeout(turnTime));
  }
}

/**
 * Ends `worker` (SIGTERM, then SIGKILL after the grace) when its run is cancelled, at once if it already was.
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function stopOnCancel(worker: LimitedWorker): void {
  const { kind, signal } = worker.options;
  const onAbort = (): void =>
    worker.kill({
      ended: 'failed',
      reason: 'signalled',
      message: `the ${kind} worker was stopped: its run was cancelled`,
    }, 'SIGTERM');
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  worker.onEnded(() => signal?.removeEventListener('abort', onAbort));
}

/**
 * The hook deadlines a worker announced, by its hook id: the launcher ends the worker at a hook's deadline (plus
 * {@link OUTSIDE_DEADLINE_GRACE_MS}), since a hook caught in native code never yields to the worker's own timer.
 *
 * Source: spec/platform-service.md § Rules 8; docs/decisions.md D17 § 3
 */
export class HookDeadlines {
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();

  constructor(private readonly worker: Pick<LimitedWorker, 'options' | 'kill'>) {}

  /** A hook starts (`ms` its time) or ended (`ms` null): reports it and sets or clears its deadline. */
  announce(id: number, ms: number | null): void {
    if (!Number.isSafeInteger(id)) return;
    const { options } = this.worker;
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    if (ms === null) options.onProgress?.({ kind: 'hook', id, ended: true });
    if (ms === null || typeof ms !== 'number' || !(ms > 0) || this.timers.size >= MAX_HOOK_DEADLINES) return;
    options.onProgress?.({ kind: 'hook', id, ended: false });
    const { kind, limits } = options;
    const seconds = Math.round(ms / 100) / 10;
    const waitMs = Math.min(ms, limits.wallTimeSeconds * 1000) + OUTSIDE_DEADLINE_GRACE_MS;
    this.timers.set(id, setTimeout(() => this.worker.kill(limitMessage(kind, 'hook time', limits, seconds)), waitMs));
  }

  /** Clears every deadline (the worker has ended). */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
  }
}
