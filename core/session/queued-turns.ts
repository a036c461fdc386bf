/**
 * Queuing a turn so that every use case is recoverable from its first write. The write that moves a session to
 * `running` (a new session's insert, or the compare-and-set of decide, reply, a delivery to a parked session and the
 * park sweep) carries the turn that must follow as the session's outbox (`next`, with the turn's id chosen there);
 * the turn is then inserted under that id and put on the queue (job id = turn id). A process that dies after the
 * first write leaves the outbox, which the turn sweep (./turn-recovery.ts) completes; a queue store that refuses the
 * add is answered by undoing the use case (no session or move left behind) and a 503 the caller may retry.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { NextTurn, SessionRecord, SessionStatus, TurnKind, TurnRecord } from './model.ts';
import { DESIGN_ID_PREFIX } from './turn-jobs.ts';
import {
  insertSession,
  insertTurn,
  type NewSession,
  sessionsOf,
  type SessionStoreDeps,
  turnsOf,
} from './session-store.ts';

/** What queuing a turn needs: the stores and the turn queue (job id = turn id; idempotent). */
export type TurnQueueDeps = SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> };

/**
 * The outbox entry of a turn of `kind` with `input`, under a new turn id; a design chat's turn id takes the prefix of
 * its session's (./turn-jobs.ts DESIGN_ID_PREFIX: it is queued on the design agent's queue).
 */
export function nextTurn(
  deps: Pick<SessionStoreDeps, 'clock' | 'ids'>,
  kind: TurnKind,
  input: TurnRecord['input'],
  sessionId?: string,
): NextTurn {
  const prefix = sessionId?.startsWith(DESIGN_ID_PREFIX) === true ? DESIGN_ID_PREFIX : '';
  return { turnId: `${prefix}${deps.ids.newId()}`, kind, input, at: deps.clock.now() };
}

/**
 * Inserts the turn a session's outbox names (a turn already inserted under that id is read back: a second insert is
 * the same turn). @returns the turn, or null when one under that id existed and was deleted meanwhile (an undo)
 */
export async function insertNextTurn(
  deps: SessionStoreDeps,
  session: Pick<SessionRecord, '_id' | 'orgId'>,
  next: NextTurn,
): Promise<TurnRecord | null> {
  try {
    return await insertTurn(deps, session, { kind: next.kind, input: next.input, status: 'queued', id: next.turnId });
  } catch (error) {
    if (!isPlatformError(error, 'duplicate_key')) throw error;
    return turnsOf(deps).findOne({ _id: next.turnId });
  }
}

/**
 * The 503 of a turn the queue store did not take (the use case was undone); a refusal that already says why (no
 * queue store configured) is kept as it is.
 */
const refused = (error: unknown) => (isPlatformError(error, 'queue_unavailable') ? error : new PlatformError(
  'queue_unavailable',
  'The queue store did not take the turn, so nothing was changed; retry in a moment.',
  { status: 503, cause: error },
));

/**
 * Removes a queued turn whose add the queue store refused. @returns false when it was claimed meanwhile (the add
 * went through after all): the use case then stands
 */
async function withdrawTurn(deps: SessionStoreDeps, turnId: string): Promise<boolean> {
  return (await turnsOf(deps).deleteOne({ _id: turnId, status: 'queued' })) === 1;
}

/**
 * Opens a session (its insert carries the outbox), inserts its first turn and queues it. A refused add removes the
 * turn and the session. @throws PlatformError `queue_unavailable` (503) when the queue store refused the add
 */
export async function openSessionWithTurn(
  deps: TurnQueueDeps,
  fields: NewSession,
  kind: TurnKind,
  input: TurnRecord['input'],
): Promise<{ session: SessionRecord; turn: TurnRecord }> {
  const next = nextTurn(deps, kind, input, fields._id);
  const session = await insertSession(deps, { ...fields, next });
  const turn = (await insertNextTurn(deps, session, next))!;
  await queueOpeningTurn(deps, session, turn);
  return { session, turn };
}

/**
 * Puts the first turn of a session just opened (its insert carried the turn as its outbox) on the queue. A refused
 * add removes the turn and the session, unless the turn was claimed meanwhile (the add went through after all).
 * @throws PlatformError `queue_unavailable` (503) when the queue store refused the add
 */
export async function queueOpeningTurn(
  deps: TurnQueueDeps,
  session: Pick<SessionRecord, '_id'>,
  turn: Pick<TurnRecord, '_id'>,
): Promise<void> {
  try {
    await deps.enqueueTurn(turn._id);
  } catch (error) {
    if (!(await withdrawTurn(deps, turn._id))) return;
    await sessionsOf(deps).deleteOne({ _id: session._id, status: 'running', 'next.turnId': turn._id });
    throw refused(error);
  }
}

/** The move {@link moveSessionOn} makes: the compare-and-set and the turn it queues. */
export interface SessionMove {
  /** More conditions of the compare-and-set on the session (its id and status `from` are always matched). */
  filter: Record<string, unknown>;
  /** The status the session must have to move, and the one a refused add puts it back to. */
  from: SessionStatus;
  /** The kind of the turn queued. */
  kind: TurnKind;
  /** The turn's input. */
  input: TurnRecord['input'];
  /** The turn's id when it was chosen before (a queued chat message's); absent: a new one. */
  turnId?: string;
  /** More fields the move writes (a chat's queue, taken from: ./chat-queue.ts). */
  set?: Record<string, unknown>;
  /** What a refused add writes back besides the status (the queue as it was). */
  undo?: Record<string, unknown>;
}

/**
 * Moves a parked session on: one compare-and-set (status `from`, and `filter`) sets it
 * `running` with the outbox, then the turn is inserted and queued. A refused add removes the turn and puts the
 * session back to `from` (its pending work untouched by the move).
 * @returns the turn, or undefined when the compare-and-set matched nothing (the session moved meanwhile)
 * @throws PlatformError `queue_unavailable` (503) when the queue store refused the add
 */
export async function moveSessionOn(
  deps: TurnQueueDeps,
  session: Pick<SessionRecord, '_id' | 'orgId'>,
  { filter, from, kind, input, turnId, set, undo }: SessionMove,
): Promise<TurnRecord | undefined> {
  const chosen = nextTurn(deps, kind, input, session._id);
  const next = turnId === undefined ? chosen : { ...chosen, turnId };
  const move = { ...set, status: 'running', next, updatedAt: next.at };
  const { matched } = await sessionsOf(deps).updateOne({ ...filter, _id: session._id, status: from }, { $set: move });
  if (matched === 0) return undefined;
  const turn = (await insertNextTurn(deps, session, next))!;
  try {
    await deps.enqueueTurn(turn._id);
  } catch (error) {
    if (!(await withdrawTurn(deps, turn._id))) return turn;
    const back = { ...undo, status: from, next: null, updatedAt: deps.clock.now() };
    const moved = { _id: session._id, status: 'running', 'next.turnId': next.turnId };
    await sessionsOf(deps).updateOne(moved, { $set: back });
    throw refused(error);
  }
  return turn;
}
