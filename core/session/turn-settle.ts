/**
 * Settling a turn: the turn first (the exactly-once claim), then its session. The session's write is a
 * compare-and-set on its queue (`queueVersion`): a turn that leaves its chat waiting for input while messages are
 * queued hands the chat to the first of them in that same write (status `running`, the message's turn as the
 * outbox `next`), so no message sent meanwhile is left behind and none jumps the queue (docs/decisions.md D27 § 1).
 * A rolled-back turn's `restore` (the session as it was before it) is written on the turn and applied by the same
 * write. A process that dies between the two writes leaves the session `running` with no live turn: the turn sweep
 * (./turn-recovery.ts) settles it from its last turn through {@link settleSession}, handing over and restoring alike.
 *
 * Source: docs/architecture.md § Life of a turn; docs/decisions.md D7 § Sessions and turns, D25, D27 § 1.
 */
import type { SessionRestore } from './chat-queue-model.ts';
import { handOverFilter, handOverOf } from './chat-queue.ts';
import { type NextTurn, sessionCollections, type SessionRecord, type TurnRecord, type TurnTimeline } from './model.ts';
import { insertNextTurn, type TurnQueueDeps } from './queued-turns.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import type { TurnOutcome } from './turn-host.ts';

/** What a settle needs: the stores; with the turn queue, a chat handed to its next message has its turn queued now. */
export type SettleDeps = Pick<SessionStoreDeps, 'docs' | 'clock'> & Partial<TurnQueueDeps>;

/** How a turn ends: the engine's outcome, what the runner timed, and how a new message stopped it (D27 § 1). */
export type SettleOutcome = TurnOutcome & {
  timeline?: TurnTimeline;
  /** Set when a queued message stopped the turn before its end. */
  interrupted?: TurnRecord['interrupted'];
  /** A rolled-back turn: the session as it was before it. */
  restore?: SessionRestore;
};

/**
 * The session as its settled `turn` left it. {@link settleTurn} marks the turn first (the exactly-once claim) and
 * the session right after, so a reader that saw the turn settle may still read the session as `running`: it then
 * takes the turn's status and error, the session's last write (its pending decision or wait is checkpointed
 * before the turn settles). A chat handed to a queued message reads `running` too and takes its last turn's status.
 */
export function settledSession(
  session: SessionRecord,
  turn: Pick<TurnRecord, 'status' | 'error'> | null,
): SessionRecord {
  if (session.status !== 'running' || !turn || turn.status === 'queued' || turn.status === 'running') return session;
  return { ...session, status: turn.status, error: turn.error };
}

/**
 * Settles a running turn and its session with the engine's outcome. A turn cancelled meanwhile stays cancelled.
 * The outcome's `timeline` (what the runner timed) is written with it: steps and span on the turn, the span as the
 * session's `lastTurnSpan`. A chat handed to a queued message has that message's turn inserted and queued when
 * `deps` has the turn queue (else the turn sweep does it from the outbox).
 * @param where - more conditions on the turn: its runner's `{lease}` (a fenced-out runner settles nothing), or the
 *   stale sweep's `{lease, heartbeatAt: {$lt: …}}` (a turn whose heartbeat was just renewed is left)
 * @returns false when the turn was no longer running (or no longer matched `where`)
 */
export async function settleTurn(
  deps: SettleDeps,
  turn: Pick<TurnRecord, '_id' | 'sessionId'>,
  outcome: SettleOutcome,
  where: Record<string, unknown> = {},
): Promise<boolean> {
  const now = deps.clock.now();
  const status = outcome.status === 'running' ? 'failed' : outcome.status;
  const error = outcome.error ?? null;
  // What the runner timed goes with these writes (docs/decisions.md D25): no round trip of its own.
  const { steps, stepsDropped, span } = outcome.timeline ?? {};
  const timed = { ...(steps ? { steps } : {}), ...(stepsDropped ? { stepsDropped } : {}), ...(span ? { span } : {}) };
  const stopped = {
    ...(outcome.interrupted ? { interrupted: outcome.interrupted } : {}),
    ...(outcome.restore ? { restore: outcome.restore } : {}),
  };
  const { matched } = await turnsOf(deps).updateOne(
    { ...where, _id: turn._id, status: 'running' },
    { $set: { status, error, endedAt: now, ...timed, ...stopped } },
  );
  if (matched === 0) return false;
  const ended = { status, error, span, restore: outcome.restore };
  const handedOver = (await settleSession(deps, turn.sessionId, ended))?.handedOver;
  if (handedOver) await queueHandedOver(deps, handedOver.session, handedOver.next);
  return true;
}

/** How the session of a settled turn is written: the turn's status and error, its span, and what it restores. */
export interface SessionSettle {
  status: TurnRecord['status'];
  error: TurnRecord['error'];
  span?: TurnRecord['span'];
  restore?: SessionRestore;
}

/**
 * The session's half of a settle: a compare-and-set on its status `running` (and `where`). A chat left waiting for
 * input is written in one round trip while nothing is queued (`queuedCount` absent or 0); with messages queued, it
 * is read and handed to the first of them by a compare-and-set on its queue, retried when a message was queued
 * meanwhile.
 * @returns `next` and the session as read when the chat was handed over; undefined when it was not `running` (or
 *   `where` did not match)
 */
export async function settleSession(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  sessionId: string,
  ended: SessionSettle,
  where: Record<string, unknown> = {},
): Promise<{ handedOver?: { session: SessionRecord; next: NextTurn } } | undefined> {
  const running = { ...where, _id: sessionId, status: 'running' };
  // A turn that ends or parks on a decision keeps the queue (messages wait for input): no queue to compare.
  const quiet = ended.status === 'awaiting_input' ? { queuedCount: { $in: [null, 0] } } : {};
  if ((await sessionsOf(deps).updateOne({ ...running, ...quiet }, { $set: settledFields(deps, ended) })).matched) {
    return settled(deps, sessionId, ended, {});
  }
  if (ended.status !== 'awaiting_input') return undefined;
  for (let round = 0; round < 20; round += 1) {
    const session = await sessionsOf(deps).findOne(running);
    if (!session) return undefined;
    const handOver = handOverOf(deps, session);
    const filter = { ...running, ...handOverFilter(session) };
    const set = { ...settledFields(deps, ended), ...handOver?.set };
    if ((await sessionsOf(deps).updateOne(filter, { $set: set })).matched === 0) continue;
    return settled(deps, sessionId, ended, handOver ? { handedOver: { session, next: handOver.next } } : {});
  }
  return undefined;
}

/** What a settle writes on the session: the turn's status and error, its span, a rollback's restore. */
function settledFields(deps: Pick<SessionStoreDeps, 'clock'>, ended: SessionSettle): Record<string, unknown> {
  return {
    status: ended.status,
    error: ended.error,
    updatedAt: deps.clock.now(),
    lease: null,
    next: null,
    interrupt: null,
    ...(ended.span ? { lastTurnSpan: ended.span } : {}),
    ...(ended.restore ? restoredFields(ended.restore) : {}),
  };
}

/** After the session's write: a rollback's messages removed. @returns `outcome` */
async function settled<T>(
  deps: Pick<SessionStoreDeps, 'docs'>,
  sessionId: string,
  ended: SessionSettle,
  outcome: T,
): Promise<T> {
  if (ended.restore) await discardAfter(deps, sessionId, ended.restore.messageCount);
  return outcome;
}

/** The session fields a rollback writes back. */
const restoredFields = (restore: SessionRestore) => ({
  state: restore.state,
  variables: restore.variables,
  visit: restore.visit,
  trail: restore.trail,
  pending: restore.pending,
  messageCount: restore.messageCount,
});

/**
 * Removes a rolled-back turn's messages (numbered from `from`): no longer part of the thread once the count is
 * written back; one left by a process that died here is overwritten by the next append (./session-store.ts).
 */
async function discardAfter(deps: Pick<SessionStoreDeps, 'docs'>, sessionId: string, from: number): Promise<void> {
  await deps.docs.collection(sessionCollections.messages).deleteMany({ sessionId, seq: { $gte: from } });
}

/** Inserts and queues the turn a chat was handed to, when the queue is at hand (else the turn sweep does). */
async function queueHandedOver(deps: SettleDeps, session: SessionRecord, next: NextTurn): Promise<void> {
  if (!deps.enqueueTurn || !deps.ids || !deps.objects) return;
  const full = deps as TurnQueueDeps;
  const turn = await insertNextTurn(full, session, next);
  // A queue store that refuses leaves the turn queued: the turn sweep puts it on the queue after its grace.
  if (turn) await full.enqueueTurn(turn._id).catch(() => undefined);
}
