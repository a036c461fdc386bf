/**
 * The turn sweep: every dispatcher runs it in every mode (beside the park sweep), so no use case is left half done
 * by a process that died between its writes or a queue store that lost its jobs:
 * 1. a session `running` whose outbox (`next`, ./queued-turns.ts) names a turn that was never inserted gets it;
 * 2. a `queued` turn older than the grace whose job is not waiting, delayed or active is put on the queue again
 *    (job id = turn id; a kept completed or failed job of that id is removed first: `ensureTurnJob`);
 * 3. a session `running` with no queued or running turn and no outbox, not written for the grace, takes the
 *    status of its last turn when that one ended (a settle that died between the turn and the session; a chat with
 *    queued messages is handed to the first, a rollback restored: ./turn-settle.ts), or ends failed, interrupted by
 *    a platform restart (a session whose turn was never inserted before outboxes existed);
 * 4. a chat waiting for input with queued messages, not written for the grace, is handed to the first of them.
 * Every write is a compare-and-set or an insert under a known id, so sweeps of several dispatchers at once agree.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container, § Rules 3.
 */
import type { SessionChanges } from '../ports/session-changes.ts';
import { finalStatuses, type SessionRecord, type TurnRecord } from './model.ts';
import { insertNextTurn } from './queued-turns.ts';
import { handOverWaiting } from './chat-queue.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import { settleSession } from './turn-settle.ts';
import { interruptedError } from './stale-turns.ts';

/** How long a queued turn or a moved session may wait for its own process to finish before the sweep does (ms). */
export const TURN_RECOVERY_GRACE_MS = 30_000;

/** What the turn sweep needs: the stores and the turn queue. */
export interface TurnRecoveryDeps extends SessionStoreDeps {
  /**
   * Puts turn `turnId` on the turn queue unless a job of it is waiting, delayed or active (one with a kept completed
   * or failed job is replaced). @returns true when a job was added
   */
  ensureTurnJob(turnId: string): Promise<boolean>;
  /** Told after the sweep settles a session (its chat's readers read again); absent: nobody is told. */
  changes?: SessionChanges;
}

/** What one sweep did (turn and session ids). */
export interface TurnRecovery {
  inserted: string[];
  requeued: string[];
  settled: string[];
}

/**
 * Runs the three steps once over at most `limit` records each (default 500).
 * @param graceMs - default {@link TURN_RECOVERY_GRACE_MS}
 */
export async function recoverTurns(
  deps: TurnRecoveryDeps,
  options: { graceMs?: number; limit?: number } = {},
): Promise<TurnRecovery> {
  const before = new Date(deps.clock.now().getTime() - (options.graceMs ?? TURN_RECOVERY_GRACE_MS));
  const limit = options.limit ?? 500;
  const done: TurnRecovery = { inserted: [], requeued: [], settled: [] };
  const moved = await sessionsOf(deps).find({ status: 'running', 'next.at': { $lt: before } }, { limit });
  for (const session of moved) {
    const next = session.next!;
    if (await turnsOf(deps).findOne({ _id: next.turnId })) continue;
    const turn = await insertNextTurn(deps, session, next);
    if (turn) done.inserted.push(turn._id);
  }
  const waiting = { status: 'queued', queuedAt: { $lt: before } };
  const queued = await turnsOf(deps).find(waiting, { sort: { queuedAt: 1 }, limit });
  for (const turn of [...queued, ...await insertedNow(deps, done.inserted)]) {
    if (await deps.ensureTurnJob(turn._id)) done.requeued.push(turn._id);
  }
  const stillRunning = { status: 'running', updatedAt: { $lt: before } };
  const idle = await sessionsOf(deps).find(stillRunning, { sort: { updatedAt: 1 }, limit });
  for (const session of idle) {
    if (session.next) continue;
    const live = { sessionId: session._id, status: { $in: ['queued', 'running'] } };
    if (await turnsOf(deps).countDocuments(live) > 0) continue;
    if (!(await settleOrphan(deps, session))) continue;
    done.settled.push(session._id);
    deps.changes?.changed(session.rootId ?? session._id);
  }
  for (const id of await handOverLeftWaiting(deps, before, limit)) {
    done.settled.push(id);
    deps.changes?.changed(id);
  }
  return done;
}

/** The turns this sweep inserted (queued: they were never on the queue). */
async function insertedNow(deps: SessionStoreDeps, ids: string[]): Promise<TurnRecord[]> {
  return ids.length === 0 ? [] : turnsOf(deps).find({ _id: { $in: ids }, status: 'queued' });
}

/**
 * Settles a running session with no live turn from its last turn (handing a chat to its queued message, applying a
 * rollback's restore: ./turn-settle.ts), or fails it interrupted; true when written.
 */
async function settleOrphan(deps: TurnRecoveryDeps, session: SessionRecord): Promise<boolean> {
  const [last] = await turnsOf(deps).find({ sessionId: session._id }, { sort: { queuedAt: -1 }, limit: 1 });
  const ended = last && (finalStatuses.includes(last.status as never) || last.status.startsWith('awaiting_'));
  const outcome = ended
    ? { status: last.status, error: last.error, ...(last.restore ? { restore: last.restore } : {}) }
    : { status: 'failed' as const, error: interruptedError };
  const settled = await settleSession(deps, session._id, outcome, { next: null });
  const handedOver = settled?.handedOver;
  const handed = handedOver ? await insertNextTurn(deps, handedOver.session, handedOver.next) : null;
  if (handed) await deps.ensureTurnJob(handed._id);
  return settled !== undefined;
}

/**
 * Chats left waiting for input with queued messages (a hand-over that no write made: ./chat-queue.ts) are handed to
 * their first message. @returns the sessions handed over
 */
async function handOverLeftWaiting(deps: TurnRecoveryDeps, before: Date, limit: number): Promise<string[]> {
  const waiting = { status: 'awaiting_input', queuedCount: { $gt: 0 }, updatedAt: { $lt: before } };
  const handed: string[] = [];
  for (const session of await sessionsOf(deps).find(waiting, { limit })) {
    const enqueueTurn = async (turnId: string) => void await deps.ensureTurnJob(turnId);
    if (await handOverWaiting({ ...deps, enqueueTurn }, session._id)) handed.push(session._id);
  }
  return handed;
}
