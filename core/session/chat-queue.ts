/**
 * Double-texting (docs/decisions.md D27 § 1): what a chat message does while a turn of its chat runs, as the chat
 * trigger's `multitask` says. `reject` refuses it (409 `turn_running`); `enqueue` keeps it in order on the session
 * (`queued`) and it runs as the next turn when the running one ends; `interrupt` and `rollback` queue it too and ask
 * the running turn to stop before its next model call (the store host stops it: ./turn-interrupt.ts), keeping or
 * discarding what it did. The queue is written only by compare-and-sets on `queueVersion`: a send, and the settle
 * that hands the chat to its first queued message in the same write that ends the turn (./turn-settle.ts). So a
 * message is never lost, never run twice, and never overtaken by a later one, on any replica.
 *
 * Source: docs/agent-format.md § Triggers (chat `multitask`); docs/decisions.md D27 § 1.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { MultitaskStrategy } from '../agent/multitask.ts';
import type { QueuedMessage } from './chat-queue-model.ts';
import type { NextTurn, SessionRecord, TurnRecord } from './model.ts';
import { moveSessionOn, nextTurn, type TurnQueueDeps } from './queued-turns.ts';
import { sessionsOf, type SessionStoreDeps } from './session-store.ts';
import { checkSpendCaps } from './spend.ts';

/** The filter that matches the session's queue as it was read (its `queueVersion`, absent until the first send). */
export function handOverFilter(session: Pick<SessionRecord, 'queueVersion'>): Record<string, unknown> {
  return session.queueVersion === undefined
    ? { queueVersion: { $exists: false } }
    : { queueVersion: session.queueVersion };
}

/**
 * The hand-over of a chat settling to `awaiting_input` with queued messages: the fields that make the first one the
 * session's next turn (a reply, under the turn id chosen when it was queued). @returns undefined with none queued
 */
export function handOverOf(
  deps: Pick<SessionStoreDeps, 'clock'>,
  session: Pick<SessionRecord, 'queued' | 'queueVersion'>,
): { next: NextTurn; set: Record<string, unknown> } | undefined {
  const [first, ...rest] = session.queued ?? [];
  if (!first) return undefined;
  const next: NextTurn = {
    turnId: first.turnId,
    kind: 'reply',
    input: { message: first.message },
    at: deps.clock.now(),
  };
  return {
    next,
    set: {
      status: 'running',
      next,
      queued: rest,
      queuedCount: rest.length,
      queueVersion: (session.queueVersion ?? 0) + 1,
    },
  };
}

/** A chat message as a front door sends it. */
export interface ChatMessage {
  /** The message's text (not blank). */
  text: string;
  /** The chat trigger's `multitask`: what it does while a turn of the chat runs. */
  multitask: MultitaskStrategy;
}

/** Where a sent message went: its turn (queued now, or waiting behind `position` earlier messages and a turn). */
export interface SentMessage {
  turnId: string;
  /** 1 for the first message waiting behind the running turn; absent when its turn was queued at once. */
  position?: number;
}

/**
 * How many messages may wait behind a chat's running turn (each becomes a turn, and the queue lives on the
 * session's record): a send beyond it is 409 `chat_queue_full`.
 */
export const MAX_QUEUED_MESSAGES = 20;

/** How many times a send reads again after another writer moved the session between its read and its write. */
const SEND_ROUNDS = 20;

/**
 * Sends `message` to a chat that has not ended: a reply when it waits for input with nothing queued, else queued
 * behind the running turn (or behind the messages already queued) as `multitask` says.
 * @throws PlatformError `invalid_argument` (400) for blank text; `turn_running` (409) with `reject` while a turn
 *   runs; `decision_pending` (409) while a decision is pending; `not_awaiting_input` (409) when the session ended or
 *   kept moving; `chat_queue_full` (409) beyond {@link MAX_QUEUED_MESSAGES} waiting; `spend_cap_reached` (429);
 *   `queue_unavailable` (503)
 */
export async function sendChatMessage(
  deps: TurnQueueDeps,
  sessionId: string,
  message: ChatMessage,
): Promise<SentMessage> {
  if (message.text.trim().length === 0) {
    throw new PlatformError('invalid_argument', 'A message needs text.', { status: 400 });
  }
  for (let round = 0; round < SEND_ROUNDS; round += 1) {
    const session = await sessionsOf(deps).findOne({ _id: sessionId });
    if (!session) break;
    refuseUnsendable(session, message.multitask);
    if (round === 0) await checkSpendCaps(deps, session);
    const sent = session.status === 'awaiting_input' && (session.queuedCount ?? 0) === 0
      ? await replyNow(deps, session, message.text)
      : await queueBehind(deps, session, message);
    if (sent) return sent;
  }
  throw new PlatformError('not_awaiting_input', `Session ${sessionId} kept changing; send the message again.`, {
    status: 409,
  });
}

/** Refuses a message the session cannot take now, whatever the strategy (a decision pending, an ended session). */
function refuseUnsendable(session: SessionRecord, multitask: MultitaskStrategy): void {
  if (session.status === 'awaiting_decision') {
    throw new PlatformError('decision_pending', `Session ${session._id} waits for a decision; decide it first.`, {
      status: 409,
    });
  }
  if (session.status !== 'running' && session.status !== 'awaiting_input') {
    throw new PlatformError('not_awaiting_input', `Session ${session._id} takes no message: it is ${session.status}.`, {
      status: 409,
    });
  }
  if (session.status === 'running' && multitask === 'reject') {
    throw new PlatformError(
      'turn_running',
      'A turn of this chat is still running; send the message once its run has finished.',
      { status: 409 },
    );
  }
}

/** The message as a reply turn, when the chat waits for input with nothing queued (undefined: it moved meanwhile). */
async function replyNow(deps: TurnQueueDeps, session: SessionRecord, text: string): Promise<SentMessage | undefined> {
  const turn: TurnRecord | undefined = await moveSessionOn(deps, session, {
    filter: handOverFilter(session),
    from: 'awaiting_input',
    kind: 'reply',
    input: { message: text },
  });
  return turn ? { turnId: turn._id } : undefined;
}

/**
 * Queues the message behind the running turn (asking it to stop with `interrupt` or `rollback`) or behind the
 * messages already queued. A chat found waiting for input with a queue (a hand-over not yet written by a sweep) is
 * handed to its first message at once. @returns undefined when the session moved meanwhile (read again)
 */
async function queueBehind(
  deps: TurnQueueDeps,
  session: SessionRecord,
  message: ChatMessage,
): Promise<SentMessage | undefined> {
  if ((session.queued?.length ?? 0) >= MAX_QUEUED_MESSAGES) {
    throw new PlatformError(
      'chat_queue_full',
      `This chat already has ${MAX_QUEUED_MESSAGES} messages waiting for its running turn; send more once they ran.`,
      { status: 409 },
    );
  }
  const entry: QueuedMessage = {
    turnId: nextTurn(deps, 'reply', {}, session._id).turnId,
    message: message.text,
    at: deps.clock.now(),
  };
  const queued = [...(session.queued ?? []), entry];
  const stop = session.status === 'running' && (message.multitask === 'interrupt' || message.multitask === 'rollback')
    ? { interrupt: { mode: message.multitask, at: entry.at } }
    : {};
  const set = { queued, queuedCount: queued.length, queueVersion: (session.queueVersion ?? 0) + 1, ...stop };
  const filter = { _id: session._id, status: session.status, ...handOverFilter(session) };
  const { matched } = await sessionsOf(deps).updateOne(filter, { $set: set });
  if (matched === 0) return undefined;
  if (session.status === 'awaiting_input') await handOverWaiting(deps, session._id);
  return { turnId: entry.turnId, position: queued.length };
}

/**
 * Hands a chat that waits for input with queued messages to the first of them (the turn sweep's step for a settle
 * that died before its hand-over, and a send that found one). @returns the turn id, or undefined when there was
 * nothing to hand over or another writer did it
 */
export async function handOverWaiting(deps: TurnQueueDeps, sessionId: string): Promise<string | undefined> {
  const session = await sessionsOf(deps).findOne({ _id: sessionId, status: 'awaiting_input' });
  const handOver = session ? handOverOf(deps, session) : undefined;
  if (!session || !handOver) return undefined;
  const { status: _running, next: _next, ...queue } = handOver.set;
  const undo = {
    queued: session.queued,
    queuedCount: session.queuedCount,
    queueVersion: (session.queueVersion ?? 0) + 2,
  };
  const turn = await moveSessionOn(deps, session, {
    filter: handOverFilter(session),
    from: 'awaiting_input',
    kind: 'reply',
    input: handOver.next.input,
    turnId: handOver.next.turnId,
    set: queue,
    undo,
  });
  return turn?._id;
}
