/**
 * Bounded intake: a firing that opens a background session (webhook, keyed delivery, callback, completion, poll) is
 * taken only while the turn queue holds fewer than `bound` background turns waiting, so a burst waits in the queue
 * store as firings, not as thousands of queued turns, and turns are opened only as fast as they can run. Every
 * dispatcher asks the same counts (the fair queue's, in the queue store), so the bound holds across dispatchers.
 *
 * Source: docs/decisions.md D24 § 1 (webhook and other background firings are taken only as fast as turns can run).
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { TURN_QUEUE } from './turn-jobs.ts';

/** How often a waiting firing looks at the turn queue again (ms). */
export const INTAKE_LOOK_MS = 50;

/** What {@link waitForTurnRoom} needs. */
export interface TurnIntakeDeps {
  queue: JobQueue;
  /** Background turns waiting at which firings wait (e.g. twice this dispatcher's turn slots). */
  bound: number;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
  /** Aborted when the dispatcher stops: a waiting firing then goes on (one more queued turn, nothing lost). */
  stop: AbortSignal;
}

/**
 * Resolves once fewer than `bound` background turns wait on the turn queue (or the dispatcher stops, or the queue
 * store cannot say: a refused count lets the firing go on rather than hold it).
 * @returns how long it waited (ms)
 */
export async function waitForTurnRoom(deps: TurnIntakeDeps, now: () => number): Promise<number> {
  const start = now();
  while (!deps.stop.aborted) {
    const counts = await deps.queue.counts(TURN_QUEUE).catch(() => undefined);
    const waiting = counts?.lanes?.background ?? 0;
    if (waiting < deps.bound) break;
    await deps.sleep(INTAKE_LOOK_MS);
  }
  return now() - start;
}
