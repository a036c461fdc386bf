/**
 * Worker processes: one per turn and one per call, holding no secret and reaching platform data only
 * over a channel to the process that started it (the broker), with a per-worker token checked on
 * every operation and revoked when the worker ends.
 *
 * Source: spec/platform-service.md § Rules 6–8; § Deployment settings (PLATFORM_WORKER_*);
 * § Operational log lines ([worker]); § Errors (worker exceeds memory or wall-time limit); § Limits.
 */

/**
 * Which slots and limits a worker uses: `turn` (a workflow, evaluation or design-agent turn) or `call`
 * (a poll, callback run, trigger lifecycle step, dropdown options, connection test, mount listing, catalog).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export type WorkerKind = 'turn' | 'call';

/**
 * The limits of one worker: resident memory in MiB (at least 128) and wall time in seconds.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_TURN_MEMORY_MB, …_SECONDS); § Limits
 */
export interface WorkerLimits {
  memoryMb: number;
  wallTimeSeconds: number;
}

/**
 * The starting process's answer to one worker request, called only after the request's token was
 * checked. Resolves with a JSON value sent back to the worker; a thrown PlatformError becomes an error
 * reply `{ code, message }` (any other error becomes `worker_request_failed` with a generic message).
 *
 * Source: spec/platform-service.md § Rules 6 (reaches platform data only through the process that started it)
 */
export type BrokerHandler = (op: string, args: unknown) => Promise<unknown>;

/**
 * One worker run.
 *
 * Source: spec/platform-service.md § Rules 6–7
 */
export interface WorkerRunOptions {
  kind: WorkerKind;
  /** What the worker runs for, as log lines name it, e.g. `turn 01J…` or `call poll 01J…`; never a value. */
  subject: string;
  /** Name of a task in the worker's task registry, e.g. `turn` or `hook`. */
  task: string;
  /** JSON input of the task. */
  payload: unknown;
  limits: WorkerLimits;
  broker: BrokerHandler;
  /** Aborting kills the worker (SIGTERM, SIGKILL 2 s later); the outcome is `signalled`. */
  signal?: AbortSignal;
  /**
   * A turn's own time limit in seconds (the workflow's `turn_seconds`): the launcher ends the worker once it has
   * run this long plus a 1 s grace (outcome limit `turn time`), whatever the code inside is doing. Default none.
   */
  turnSeconds?: number;
  /**
   * A slot of this run's kind reserved before it ({@link WorkerLauncher.reserve}): the run takes it instead of
   * waiting for one, and releases it when its worker has ended (after its outcome; the holder's own `release` then
   * does nothing). Default none (the run waits for a slot).
   */
  slot?: WorkerSlot;
  /**
   * Told of the run's progress, for the turn's timeline (docs/decisions.md D25): `spawned` (the process started),
   * `ready` (the worker read its job from the channel), `hook` (a hook it announced starting, or ending: `ended`).
   * Optional; it must not throw.
   */
  onProgress?(progress: WorkerProgress): void;
}

/** A step of a worker run the launcher reports to {@link WorkerRunOptions.onProgress}. */
export type WorkerProgress = { kind: 'spawned' } | { kind: 'ready' } | { kind: 'hook'; id: number; ended: boolean };

/** A worker slot held for a run that has not started yet; `release` gives it back (once; later calls do nothing). */
export interface WorkerSlot {
  release(): void;
}

/**
 * Which limit ended a worker: its memory or wall time (PLATFORM_WORKER_*), a hook's time, the turn's
 * `turn_seconds`, or the channel's line length.
 *
 * Source: spec/platform-service.md § Errors (worker exceeds memory or wall-time limit); docs/decisions.md D17 § 3
 */
export type WorkerLimitName = 'memory' | 'wall time' | 'hook time' | 'turn time' | 'channel line';

/**
 * Why a worker run failed:
 * - `refused to start`: its environment held a variable outside the allowlist, or it could not start;
 * - `exceeded a limit`: memory or wall time (see `limit`);
 * - `lost its channel`: it ended, or wrote something unreadable, without a result;
 * - `signalled`: the run was aborted, or something else killed it;
 * - `error`: the task itself failed (`code` is its PlatformError code).
 *
 * Source: spec/platform-service.md § Operational log lines ([worker] ended … with the reason)
 */
export type WorkerFailureReason = 'refused to start' | 'exceeded a limit' | 'lost its channel' | 'signalled' | 'error';

/**
 * How a worker run ended. A failed run's `message` says what happened and never holds a value; for a
 * limit it names the limit, its variable and value, e.g. "the turn worker exceeded its memory limit
 * (PLATFORM_WORKER_TURN_MEMORY_MB = 128 MiB)".
 *
 * Source: spec/platform-service.md § Rules 7; § Errors (worker exceeds memory or wall-time limit)
 */
export type WorkerOutcome =
  | { ended: 'finished'; result: unknown }
  | { ended: 'failed'; reason: WorkerFailureReason; message: string; limit?: WorkerLimitName; code?: string };

/**
 * Starts workers and waits for them; at most the kind's slots run at once, further runs wait in order.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export interface WorkerLauncher {
  /**
   * Runs one task in a new worker process; never rejects (every ending is an outcome). A local run resolves at the
   * worker's answer, its slot held until the process has ended (docs/decisions.md D24 § 2).
   */
  run(options: WorkerRunOptions): Promise<WorkerOutcome>;
  /**
   * Waits for a free slot of `kind` (in order with the runs waiting) and holds it for a run given it as `slot`, so
   * a caller takes its work (e.g. claims a queued turn) only once a worker can start for it (Rule 7: work beyond
   * the slots waits with its job claimed, its records untouched).
   * @returns the slot, or undefined when `signal` aborted the wait
   */
  reserve(kind: WorkerKind, signal?: AbortSignal): Promise<WorkerSlot | undefined>;
}

/**
 * The worker side of the channel: what code inside a worker uses to reach platform data. An error reply
 * rejects with a PlatformError carrying the reply's code.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export interface WorkerBroker {
  request(op: string, args: unknown): Promise<unknown>;
  /**
   * Announces to the starting process that a hook starts and may run `ms` milliseconds: past that (plus a
   * grace) the launcher ends the worker from outside, whatever the hook is doing. Returns the function that
   * withdraws the announcement once the hook has ended. Absent where nothing watches (tests, fixtures).
   */
  hookDeadline?(ms: number): () => void;
}
