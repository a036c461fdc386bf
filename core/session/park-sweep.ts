/**
 * The park sweep: a root session waiting for input whose wait named a time (`platform_wait({reason, until})`) gets
 * a delivery turn once that time has passed, saying the wait ended; a root session whose pending decision expired
 * (its human state's `expires`) gets a decision turn to the state's `expires.to`, by `platform` (trail entry
 * `expired`). Safe to run from every dispatcher at once: the session moves on by compare-and-set (on the pending
 * decision's id for an expiry, as a decision's own), so one sweep moves it, and of an expiry and a decision racing,
 * exactly one wins.
 *
 * Source: spec/platform-service.md § Processes (the dispatcher runs the park sweep); docs/agent-format.md
 * § workflow.yaml (platform_wait parks awaiting input; `until` resumes it).
 */
import { expireDecision } from './decisions.ts';
import { moveSessionOn, type TurnQueueDeps } from './queued-turns.ts';
import { sessionsOf, type SessionStoreDeps } from './session-store.ts';

/** How often a dispatcher sweeps (ms). */
export const PARK_SWEEP_INTERVAL_MS = 30_000;

/**
 * Delivers the waits that are due: for each, a `delivery` turn is queued with a message naming the end of the wait;
 * then moves on the sessions whose decision expired ({@link sweepExpiredDecisions}).
 * @returns the ids of the turns queued
 */
export async function sweepDueWaits(
  deps: SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> },
  limit = 100,
): Promise<string[]> {
  const now = deps.clock.now();
  const due = await sessionsOf(deps).find({
    status: 'awaiting_input',
    depth: 0,
    'pending.kind': 'input',
    'pending.until': { $lte: now.toISOString() },
  }, { limit });
  const queued: string[] = [];
  for (const session of due) {
    const pending = session.pending as { id: string; until?: string; reason?: string };
    const message = `The wait ended at ${pending.until} (it waited for: ${pending.reason ?? 'input'}). Carry on.`;
    // The move carries the turn as the session's outbox (./queued-turns.ts): a sweep that dies after it loses nothing.
    const same = { 'pending.id': pending.id };
    const turn = await moveSessionOn(deps, session, {
      filter: same,
      from: 'awaiting_input',
      kind: 'delivery',
      input: { message },
    });
    if (!turn) continue;
    queued.push(turn._id);
  }
  return [...queued, ...(await sweepExpiredDecisions(deps, limit))];
}

/**
 * Moves the root sessions whose pending decision expired at or before now to their `expires.to` (a child's expiry
 * surfaces on its root, whose decision turn resumes the child with it). Source: docs/decisions.md D26 § 2.
 * @returns the ids of the decision turns queued (one per session, whichever sweep's compare-and-set won)
 */
export async function sweepExpiredDecisions(deps: TurnQueueDeps, limit = 100): Promise<string[]> {
  const due = await sessionsOf(deps).find({
    status: 'awaiting_decision',
    depth: 0,
    'pending.kind': 'decision',
    'pending.expiresAt': { $lte: deps.clock.now().toISOString() },
  }, { limit });
  const queued: string[] = [];
  for (const session of due) {
    const turn = await expireDecision(deps, session);
    if (turn) queued.push(turn._id);
  }
  return queued;
}
