/**
 * Turns whose dispatcher died: with a shared queue store no replacement table runs, so a turn left `running` by a
 * dispatcher that stopped renewing its heartbeat (older than TURN_STALE_MS) ends failed, interrupted by a platform
 * restart, with the child turns running under it. Every dispatcher sweeps; the update is a compare-and-set.
 *
 * Source: spec/platform-service.md § Replacement of a container (running turn → ends failed, interrupted by a
 * platform restart), § Rules 3 (more dispatchers on more machines).
 */
import { TURN_STALE_MS } from './model.ts';
import { sessionsOf, settleTurn, turnsOf, type SessionStoreDeps } from './session-store.ts';

/** The error of an interrupted turn. Source: spec § Replacement of a container. */
export const interruptedError = { code: 'interrupted', message: 'The turn was interrupted by a platform restart.' } as const;

/** Ends a turn and the child turns still running under its session failed with `error` (a turn already settled is left). */
export async function failTurnTree(deps: Pick<SessionStoreDeps, 'docs' | 'clock'>, turn: { _id: string; sessionId: string }, error: { code: string; message: string }): Promise<void> {
  await settleTurn(deps, turn, { status: 'failed', error });
  const children = await sessionsOf(deps).find({ rootId: turn.sessionId, status: 'running' });
  for (const child of children) {
    for (const running of await turnsOf(deps).find({ sessionId: child._id, status: 'running' })) await settleTurn(deps, running, { status: 'failed', error });
  }
}

/** Fails the running turns whose runner's heartbeat is stale; returns their ids. */
export async function failStaleTurns(deps: Pick<SessionStoreDeps, 'docs' | 'clock'>, staleMs = TURN_STALE_MS): Promise<string[]> {
  const before = new Date(deps.clock.now().getTime() - staleMs);
  const stale = await turnsOf(deps).find({ status: 'running', heartbeatAt: { $lt: before } });
  for (const turn of stale) await failTurnTree(deps, turn, interruptedError);
  return stale.map((t) => t._id);
}
