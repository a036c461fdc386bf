/**
 * A running chat turn stopped by a new message (docs/decisions.md D27 § 1, the chat trigger's `multitask`
 * `interrupt` or `rollback`): the message was queued with the session's `interrupt` (./chat-queue.ts), and the
 * store host, which reads the session at every model call anyway, stops the root turn at the next one: the safe
 * point between model and tool calls (tool calls already started have run to their end and their results are
 * recorded). The turn settles `awaiting_input` marked `interrupted`, and the settle hands the chat to the queued
 * message (./turn-settle.ts). `interrupt` keeps what the turn did; `rollback` writes back the session as the host
 * first read it (state, variables, visit, trail, pending, and the thread's message count: the turn's messages,
 * including the one that started it, are discarded). Spend already incurred and effects outside cairn stay.
 *
 * Source: docs/agent-format.md § Triggers (chat `multitask`); docs/decisions.md D27 § 1.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionRestore } from './chat-queue-model.ts';
import type { SessionRecord, TurnRecord, TurnTimeline } from './model.ts';
import type { SessionStoreDeps, TurnFence } from './session-store.ts';
import { applyCheckpoint } from './session-checkpoint.ts';
import { settleTurn } from './turn-settle.ts';

/**
 * The session as a turn found it: what a rollback of that turn writes back. `session` is a record as read from the
 * store (each read is a fresh object, never written to), so its fields are kept as they are, not copied.
 */
export function restoreOf(session: SessionRecord): SessionRestore {
  const { state, variables, visit, trail, pending, messageCount } = session;
  return { state, variables, visit, trail, pending, messageCount };
}

/** What stopping the turn needs besides the stores: the claim's fence, what was timed, the session before it. */
export interface StoppedTurn {
  turn: TurnRecord;
  session: SessionRecord;
  fence?: TurnFence;
  timeline?: TurnTimeline;
  /** The session as the turn found it ({@link restoreOf}); a rollback without it keeps what the turn did. */
  before?: SessionRestore;
}

/**
 * Settles the root turn interrupted as `session.interrupt` asks. @returns the error the worker's model call gets
 * (its worker is stopped by the caller)
 */
export async function stopForMessage(
  deps: SessionStoreDeps,
  { turn, session, fence, timeline, before }: StoppedTurn,
): Promise<PlatformError> {
  const mode = session.interrupt?.mode ?? 'interrupt';
  const restore = mode === 'rollback' ? before : undefined;
  if (!restore) {
    const pending = { kind: 'input' as const, id: '', reason: 'The turn was interrupted by a new message.' };
    await applyCheckpoint(deps, turn, { pending }, fence);
  }
  const owned = fence ? { lease: fence.lease } : {};
  const outcome = { status: 'awaiting_input' as const, interrupted: mode, ...(restore ? { restore } : {}), timeline };
  await settleTurn(deps, turn, outcome, owned);
  return new PlatformError('turn_interrupted', 'A new message interrupted the turn before its next model call.', {
    status: 409,
  });
}
