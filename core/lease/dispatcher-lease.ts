/**
 * The single-dispatcher lease loop: retry every 10 s until the lease is free or lapsed, renew every
 * 10 s while holding (it lapses 30 s after the last renewal), log who holds it once a minute while
 * waiting, and release it at once on a graceful stop.
 *
 * Source: ../shared/spec/platform-service.md § Single-dispatcher lease, § Limits (10 s / 30 s / 10 s).
 */
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

/** What the loop needs. */
export interface DispatcherLeaseDeps {
  lease: Lease;
  /** This dispatcher's id (the container's instance id). */
  owner: string;
  /** Waits `ms`; resolves early (false) when stop was requested. */
  sleep(ms: number): Promise<boolean>;
  log(line: string): void;
  /** Called once each time the lease is taken, before anything runs (settle lost jobs, start work). */
  onAcquired(): Promise<void>;
  /** Called when the lease is lost (renewal failed): stop taking work. */
  onLost(): Promise<void>;
  /** True once a graceful stop was requested. */
  stopping(): boolean;
}

/** Runs until `stopping()`; releases the lease on the way out if held. */
export async function runDispatcherLease(deps: DispatcherLeaseDeps): Promise<void> {
  let holding = false;
  let waitedMs = leaseWaitLogMs;
  while (!deps.stopping()) {
    if (!holding) {
      holding = await deps.lease.acquire(dispatcherLeaseName, deps.owner, leaseLapseMs);
      if (holding) {
        deps.log(`took the single-dispatcher lease as ${deps.owner}`);
        await deps.onAcquired();
        waitedMs = leaseWaitLogMs;
      } else {
        if (waitedMs >= leaseWaitLogMs) {
          deps.log(`waiting for the single-dispatcher lease, held by ${(await deps.lease.holder(dispatcherLeaseName)) ?? 'nobody (lapsing)'}; this container's /healthz answers 503 meanwhile`);
          waitedMs = 0;
        }
        waitedMs += leaseRetryMs;
      }
      await deps.sleep(holding ? leaseRenewMs : leaseRetryMs);
      continue;
    }
    if (!(await deps.lease.renew(dispatcherLeaseName, deps.owner, leaseLapseMs))) {
      holding = false;
      deps.log('lost the single-dispatcher lease (not renewed in time); stopping work and waiting to take it again');
      await deps.onLost();
      continue;
    }
    await deps.sleep(leaseRenewMs);
  }
  if (holding) {
    await deps.lease.release(dispatcherLeaseName, deps.owner);
    deps.log('released the single-dispatcher lease');
  }
}
