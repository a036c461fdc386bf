/**
 * Turns whose dispatcher died: with a shared queue store no replacement table runs, so a turn left `running` by a
 * dispatcher that stopped renewing its heartbeat (older than TURN_STALE_MS) ends failed, interrupted by a platform
 * restart, with the child turns running under it. Every dispatcher sweeps; the update is a compare-and-set.
 *
 * Source: spec/platform-service.md § Replacement of a container (running turn → ends failed, interrupted by a
 * platform restart), § Rules 3 (more dispatchers on more machines).
 */
import type { SessionChanges } from '../ports/session-changes.ts';
import { TURN_STALE_MS, type TurnTimeline } from './model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import { settleTurn } from './turn-settle.ts';

/** The error of an interrupted turn. Source: spec § Replacement of a container. */
export const interruptedError = {
  code: 'interrupted',
  message: 'The turn was interrupted by a platform restart.',
} as const;

/**
 * Ends a turn and the child turns still running under its session failed with `error` (a turn already settled is
 * left); the root turn's `timeline` (what its runner timed, docs/decisions.md D25), when given, is written with it.
 * @param where - more conditions on the root turn (see `settleTurn`); when it does not match, nothing is ended
 * @returns whether the root turn was ended here
 */
export async function failTurnTree(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  turn: { _id: string; sessionId: string; timeline?: TurnTimeline },
  error: { code: string; message: string },
  where: Record<string, unknown> = {},
): Promise<boolean> {
  const ended = await settleTurn(deps, turn, { status: 'failed', error, timeline: turn.timeline }, where);
  if (!ended && Object.keys(where).length > 0) return false;
  const children = await sessionsOf(deps).find({ rootId: turn.sessionId, status: 'running' });
  for (const child of children) {
    for (const running of await turnsOf(deps).find({ sessionId: child._id, status: 'running' })) {
      await settleTurn(deps, running, { status: 'failed', error });
    }
  }
  return ended;
}

/**
 * Fails the running turns whose runner's heartbeat is stale; returns their ids. `deps.clock` must be the clock the
 * runners' heartbeats were written with (the dispatchers' queue-store clock, core/adapters/redis/store-clock.ts), so
 * machines whose own clocks disagree still agree on staleness. The write matches the lease and the stale heartbeat
 * read, so a turn whose heartbeat was renewed meanwhile is left running. With `changes`, each failed turn's chat gets
 * a change notification.
 */
export async function failStaleTurns(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'> & { changes?: SessionChanges },
  staleMs = TURN_STALE_MS,
): Promise<string[]> {
  const before = new Date(deps.clock.now().getTime() - staleMs);
  const stale = await turnsOf(deps).find({ status: 'running', heartbeatAt: { $lt: before } });
  const failed: string[] = [];
  for (const turn of stale) {
    const where = { heartbeatAt: { $lt: before }, ...(turn.lease === undefined ? {} : { lease: turn.lease }) };
    if (!(await failTurnTree(deps, turn, interruptedError, where))) continue;
    failed.push(turn._id);
    // The chat's readers (a stream, an MCP call) read again now rather than at their next safety read.
    if (deps.changes) {
      const session = await sessionsOf(deps).findOne({ _id: turn.sessionId });
      deps.changes.changed(session?.rootId ?? turn.sessionId);
    }
  }
  return failed;
}
