/**
 * The single-dispatcher lease loop: retry every 10 s until the lease is free or lapsed, renew every
 * 10 s while holding (it lapses 30 s after the last renewal), log who holds it once a minute while
 * waiting, and release it at once on a graceful stop.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease, § Limits (10 s / 30 s / 10 s).
 */
import type { Clock } from '../ports/clock.ts';
import type { Lease } from '../ports/lease.ts';

/** Lease name of the single dispatcher. */
export const dispatcherLeaseName = 'single-dispatcher';
/** Renewal interval (ms). */
export const leaseRenewMs = 10_000;
/** Lapse after the last renewal (ms). */
export const leaseLapseMs = 30_000;
/** Retry interval while another holds it (ms). */
export const leaseRetryMs = 10_000;
/** Interval of the "held by" line while waiting (ms). */
export const leaseWaitLogMs = 60_000;
/**
 * Retry interval after a renewal that failed with an error (a busy or unreachable store), in ms. Retries go
 * on while more than this is left before the lease would lapse; then the lease counts as lost.
 */
export const leaseRenewRetryMs = 2_000;

/** What the loop needs. */
export interface DispatcherLeaseDeps {
  lease: Lease;
  /** This dispatcher's id (the container's instance id). */
  owner: string;
  /** Time source: when the lease would lapse is counted from the start of the last successful renewal. */
  clock: Clock;
  /** Waits `ms`; resolves early (false) when stop was requested. */
  sleep(ms: number): Promise<boolean>;
  log(line: string): void;
  /** Called once each time the lease is taken, before anything runs (settle lost jobs, start work). */
  onAcquired(): Promise<void>;
  /** Called when the lease is lost (renewal refused, or failing until the lease would lapse): stop taking work. */
  onLost(): Promise<void>;
  /** True once a graceful stop was requested. */
  stopping(): boolean;
}

interface LoopState {
  holding: boolean;
  /** Time waited since the last "held by" line, in ms. */
  waitedMs: number;
  /** Epoch ms at the start of the last successful acquire or renewal: the lease lapses leaseLapseMs after it. */
  renewedAtMs: number;
}

/**
 * Runs until `stopping()`; releases the lease on the way out if held. A store error while taking, renewing,
 * naming the holder or releasing is logged (its message, never a value it holds) and never ends the loop:
 * a failed renewal is retried every {@link leaseRenewRetryMs} until the lease would lapse, then work stops
 * (`onLost`) and the loop goes back to taking the lease.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease; docs/decisions.md D6 § 0 (a large write must not starve
 * the lease).
 */
export async function runDispatcherLease(deps: DispatcherLeaseDeps): Promise<void> {
  const state: LoopState = { holding: false, waitedMs: leaseWaitLogMs, renewedAtMs: 0 };
  while (!deps.stopping()) {
    const pauseMs = state.holding ? await keepLease(deps, state) : await takeLease(deps, state);
    if (pauseMs > 0) await deps.sleep(pauseMs);
  }
  if (state.holding) {
    try {
      await deps.lease.release(dispatcherLeaseName, deps.owner);
      deps.log('released the single-dispatcher lease');
    } catch (error) {
      deps.log(
        `releasing the single-dispatcher lease failed (${reasonOf(error)}); it lapses ${
          leaseLapseMs / 1000
        } s after its last renewal`,
      );
    }
  }
}

/** One attempt to take the lease; returns how long to wait before the next step, in ms. */
async function takeLease(deps: DispatcherLeaseDeps, state: LoopState): Promise<number> {
  const startedMs = deps.clock.now().getTime();
  let taken: boolean;
  try {
    taken = await deps.lease.acquire(dispatcherLeaseName, deps.owner, leaseLapseMs);
  } catch (error) {
    deps.log(
      `taking the single-dispatcher lease failed (${reasonOf(error)}); trying again in ${leaseRetryMs / 1000} s`,
    );
    return leaseRetryMs;
  }
  if (!taken) {
    if (state.waitedMs >= leaseWaitLogMs) {
      const holder = await deps.lease.holder(dispatcherLeaseName).catch((error: unknown) =>
        `unknown (${reasonOf(error)})`
      );
      deps.log(
        `waiting for the single-dispatcher lease, held by ${
          holder ?? 'nobody (lapsing)'
        }; this container's /healthz answers 503 meanwhile`,
      );
      state.waitedMs = 0;
    }
    state.waitedMs += leaseRetryMs;
    return leaseRetryMs;
  }
  Object.assign(state, { holding: true, renewedAtMs: startedMs, waitedMs: leaseWaitLogMs });
  deps.log(`took the single-dispatcher lease as ${deps.owner}`);
  await deps.onAcquired();
  return leaseRenewMs;
}

/** One renewal; returns how long to wait before the next step, in ms (0: try to take the lease at once). */
async function keepLease(deps: DispatcherLeaseDeps, state: LoopState): Promise<number> {
  const startedMs = deps.clock.now().getTime();
  let renewed: boolean;
  try {
    renewed = await deps.lease.renew(dispatcherLeaseName, deps.owner, leaseLapseMs);
  } catch (error) {
    const leftMs = state.renewedAtMs + leaseLapseMs - deps.clock.now().getTime();
    if (leftMs > leaseRenewRetryMs) {
      deps.log(
        `renewing the single-dispatcher lease failed (${reasonOf(error)}); retrying in ${
          leaseRenewRetryMs / 1000
        } s, the lease lapses in ${Math.floor(leftMs / 1000)} s`,
      );
      return leaseRenewRetryMs;
    }
    deps.log(`renewing the single-dispatcher lease failed (${reasonOf(error)}) until it would lapse`);
    renewed = false;
  }
  if (!renewed) {
    state.holding = false;
    deps.log('lost the single-dispatcher lease (not renewed in time); stopping work and waiting to take it again');
    await deps.onLost();
    return 0;
  }
  state.renewedAtMs = startedMs;
  return leaseRenewMs;
}

/** First line of an error's message, or its code; what the log names. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
