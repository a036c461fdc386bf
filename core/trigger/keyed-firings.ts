/**
 * A claimed firing of a callback or polling trigger that may carry a session key: claimed once by its id, then
 * opened (or delivered to the open session of its key). When that session is busy (a turn runs, or it waits for a
 * decision) the claim is released and the firing is queued again on the trigger queue after a delay that doubles
 * (the webhook's: 5 s to 5 minutes, 10 tries), then dropped with one log line naming the firing, trigger and key —
 * never the payload. A firing is never lost to a busy session and never opens a second session of its key.
 *
 * Source: docs/agent-format.md § Triggers (`session` on callback triggers); spec/platform-service.md § Firings;
 * docs/decisions.md D8 § Triggers.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { fireOnce, type Firing, type FiringTarget, releaseDelivery } from '../session/firings.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import { retryBusyFiring } from './webhook-firings.ts';

/** A `keyed-firing` job of the trigger queue: one firing, its claim, and which try this is. */
export interface KeyedFiringJob {
  /** The claim's scope and id (claimDelivery): a firing is taken once. */
  scope: string;
  firingId: string;
  target: FiringTarget;
  firing: Firing;
  /** 1-based; absent: the first. */
  attempt?: number;
}

/** What firing one needs. */
export type KeyedFiringDeps = SessionStoreDeps & {
  enqueueTurn(turnId: string): Promise<void>;
  queue: Pick<JobQueue, 'add'>;
  log(line: string): void;
};

/** How a firing went: opened or joined a session (or found it had: `existing`), taken before, queued again, dropped. */
export type KeyedFiringOutcome =
  | { outcome: 'opened' | 'delivered' | 'existing'; sessionId: string }
  | { outcome: 'duplicate' }
  | { outcome: 'retrying'; attempt: number; delayMs: number }
  | { outcome: 'dropped' };

/**
 * Fires one claimed firing (a `keyed-firing` job's handler, and the first try from a callback run).
 * @throws what opening the session throws, except `session_busy`
 */
export async function runKeyedFiring(deps: KeyedFiringDeps, job: KeyedFiringJob): Promise<KeyedFiringOutcome> {
  const attempt = job.attempt ?? 1;
  // The firing key makes opening idempotent (a stalled job run twice); the claim records the open still owed.
  const firingKey = job.firing.firingKey ?? JSON.stringify(['keyed', job.scope, job.firingId]);
  const firing = { ...job.firing, firingKey };
  let fired: Awaited<ReturnType<typeof fireOnce>>;
  try {
    fired = await fireOnce(deps, { scope: job.scope, firingId: job.firingId, target: job.target, firing });
  } catch (error) {
    await releaseDelivery(deps, job.scope, job.firingId);
    if (!isPlatformError(error, 'session_busy')) throw error;
    return retryBusyFiring(deps, {
      name: 'keyed-firing',
      data: job,
      identity: [job.scope, job.firingId],
      attempt,
      what: `firing ${job.firingId}`,
      target: job.target,
      sessionKey: job.firing.sessionKey,
    });
  }
  if (!fired) return { outcome: 'duplicate' };
  return { outcome: fired.outcome, sessionId: fired.session._id };
}
