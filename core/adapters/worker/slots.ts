/**
 * Worker slots: at most N workers of a kind at once per process; further runs wait in order, their jobs
 * still claimed by the caller.
 *
 * Source: spec/platform-service.md § Rules 7 (PLATFORM_WORKER_TURN_SLOTS, _CALL_SLOTS); § Limits.
 */
import type { WorkerKind, WorkerOutcome, WorkerSlot } from '../../ports/worker.ts';

/**
 * A run's outcome and, when its worker outlives the outcome (it answered and is still exiting), the promise of its
 * real end (never rejecting): the slot is held until then.
 *
 * Source: spec/platform-service.md § Rules 7; docs/decisions.md D24 § 2
 */
export interface HeldOutcome {
  outcome: WorkerOutcome;
  ended?: Promise<unknown>;
}

interface Waiter {
  grant(release: () => void): void;
  refuse(): void;
}

/**
 * Slots per worker kind.
 *
 * Source: spec/platform-service.md § Rules 7
 */
export class WorkerSlots {
  private readonly running: Record<WorkerKind, number> = { turn: 0, call: 0 };
  private readonly waiting: Record<WorkerKind, Waiter[]> = { turn: [], call: [] };
  /** Reserved slots not yet handed to a run, with their release. */
  private readonly reserved = new WeakMap<WorkerSlot, () => void>();

  /** @param limits - slots per kind (positive integers) */
  constructor(private readonly limits: Record<WorkerKind, number>) {}

  /**
   * Waits for a slot of `kind`.
   * @returns the release function (call it once), or undefined when `signal` aborted the wait
   */
  acquire(kind: WorkerKind, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.running[kind] < this.limits[kind]) return Promise.resolve(this.take(kind));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        refuse: () => resolve(undefined),
      };
      const onAbort = (): void => {
        this.waiting[kind] = this.waiting[kind].filter((other) => other !== waiter);
        waiter.refuse();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting[kind].push(waiter);
    });
  }

  /**
   * Runs `start` in a slot of the run's kind, releasing it when `start` settles. A run cancelled while it waited
   * ends `signalled` without starting.
   */
  runInSlot(
    run: { kind: WorkerKind; signal?: AbortSignal; slot?: WorkerSlot },
    start: () => Promise<WorkerOutcome>,
  ): Promise<WorkerOutcome> {
    return this.runHeld(run, async () => ({ outcome: await start() }));
  }

  /**
   * Runs `start` in a slot of the run's kind and resolves with its outcome as soon as it is known (a worker's answer),
   * holding the slot until `ended` settles (its process has exited and its directory is gone), so at most N workers
   * of a kind exist at once (spec/platform-service.md § Rules 7; docs/decisions.md D24 § 2). A `slot` reserved
   * before becomes the run's: its holder's own `release` then does nothing, the run releases it. A run cancelled
   * while it waited ends `signalled` without starting; a `start` that throws releases the slot at once.
   */
  async runHeld(
    run: { kind: WorkerKind; signal?: AbortSignal; slot?: WorkerSlot },
    start: () => Promise<HeldOutcome>,
  ): Promise<WorkerOutcome> {
    const release = run.slot ? this.handOver(run.slot) : await this.acquire(run.kind, run.signal);
    if (!release) {
      return {
        ended: 'failed',
        reason: 'signalled',
        message: `the ${run.kind} run was cancelled before its worker started`,
      };
    }
    let held: HeldOutcome;
    try {
      held = await start();
    } catch (error) {
      release();
      throw error;
    }
    if (held.ended) void held.ended.then(release, release);
    else release();
    return held.outcome;
  }

  /** A slot of `kind` held for a later run (the port's `reserve`); undefined when `signal` aborted the wait. */
  async reserve(kind: WorkerKind, signal?: AbortSignal): Promise<WorkerSlot | undefined> {
    const release = await this.acquire(kind, signal);
    if (!release) return undefined;
    const slot: WorkerSlot = {
      release: () => {
        const own = this.reserved.get(slot);
        this.reserved.delete(slot);
        own?.();
      },
    };
    this.reserved.set(slot, release);
    return slot;
  }

  /** The release of `slot`, taken from its holder (whose `release` does nothing from now on). */
  private handOver(slot: WorkerSlot): () => void {
    const release = this.reserved.get(slot);
    if (!release) return () => slot.release(); // a slot of another accounting, or released already
    this.reserved.delete(slot);
    return release;
  }

  /** Workers of `kind` running now and waiting for a slot. */
  usage(kind: WorkerKind): { running: number; waiting: number } {
    return { running: this.running[kind], waiting: this.waiting[kind].length };
  }

  private take(kind: WorkerKind): () => void {
    this.running[kind] += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running[kind] -= 1;
      const next = this.waiting[kind].shift();
      if (next) next.grant(this.take(kind));
    };
  }
}
