/**
 * A run on a thread the caller was issued: a resume entry answers the pending decision (a repeated answer gets its
 * first turn), else the last user message is a reply, or waits behind the running turn as the chat trigger's
 * `multitask` says (core/session/chat-queue.ts). A pending decision blocks a message whatever the strategy.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 4), § Errors (409); docs/decisions.md D8 § Endpoints
 * (AG-UI), D26 § 2, D27 § 1.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { sendChatMessage } from '../session/chat-queue.ts';
import { finalStatuses, type SessionRecord } from '../session/model.ts';
import type { TurnQueueDeps } from '../session/queued-turns.ts';
import { sessionsOf, type SessionStoreDeps } from '../session/session-store.ts';
import { answerOf, repeatedResume, resumeDecision, type ResumedTurn } from './agui-decisions.ts';
import { type AguiRunInput, lastUserText, type StartedRun } from './agui-run-model.ts';
import type { ServedChat } from './agui-served.ts';
import type { AdmittedCaller } from './index.ts';

const conflict = (code: string, message: string) => new PlatformError(code, message, { status: 409 });

/** Child sessions of root `rootId` that have not ended, with their message counts now. */
export async function openChildrenOf(
  deps: Pick<SessionStoreDeps, 'docs'>,
  rootId: string,
): Promise<StartedRun['openChildren']> {
  return (await sessionsOf(deps).find({ rootId })).filter((c) => !finalStatuses.includes(c.status)).map((c) => ({
    sessionId: c._id,
    fromSeq: c.messageCount,
  }));
}

/** The run input {@link continueChat} continues the chat with, and the hook before its turn is queued. */
export interface ChatContinuation {
  /** The run's input: a resume entry answers the pending decision, else its last user message is the reply. */
  input: AguiRunInput;
  /** Counts the run against the endpoint's calls per minute, just before the turn is queued. */
  beforeTurn: () => Promise<void>;
  /** The chat served: its `multitask` says what a message does while a turn runs. */
  served: Pick<ServedChat, 'multitask'>;
}

/**
 * Queues the turn that continues a chat: a decision from a resume entry, or a reply. A resume entry repeating an
 * answer already taken gets that answer's turn (docs/decisions.md D26 § 2). @returns the turn and where its messages
 * begin (absent: the session's message count)
 */
export async function continueChat(
  deps: TurnQueueDeps,
  session: SessionRecord,
  caller: AdmittedCaller,
  { input, beforeTurn, served }: ChatContinuation,
): Promise<ResumedTurn & { queued?: number }> {
  const repeated = await repeatedResume(deps, session, input.resume);
  if (repeated) return repeated;
  const pending = session.pending;
  const resume = pending ? input.resume?.find((r) => r.interruptId === pending.id) : undefined;
  if (session.status === 'awaiting_decision' && pending?.kind === 'decision') {
    if (!resume) {
      throw conflict(
        'decision_pending',
        `This chat waits for a decision; answer interrupt ${pending.id} with a ` +
          `resume entry {interruptId, status: "resolved", payload: {to, comment?, fields?}} where to is one of: ` +
          `${pending.options.map((o) => o.to).join(', ')}.`,
      );
    }
    if (resume.status === 'cancelled') {
      throw conflict('decision_pending', 'A pending decision cannot be abandoned here; decide one of the options.');
    }
    answerOf(resume, pending.options.map((o) => o.to));
    await beforeTurn();
    const by = caller.subject ? `${caller.kind}:${caller.subject}` : `agui:${caller.kind}`;
    return { turnId: await resumeDecision(deps, session, resume, by) };
  }
  const resumed =
    resume?.status === 'resolved' && typeof (resume.payload as { message?: unknown } | undefined)?.message === 'string'
      ? (resume.payload as { message: string }).message
      : undefined;
  const text = resumed ?? lastUserText(input);
  if (!text?.trim()) {
    throw new PlatformError(
      'no_message',
      'The run has no user message: send the reply as the last entry of messages, {id, role: "user", content}.',
      { status: 400 },
    );
  }
  if (session.status === 'running' && served.multitask === 'reject') {
    throw conflict('turn_running', 'A turn of this chat is still running; send the message once its run has finished.');
  }
  await beforeTurn();
  // A reply, or a message queued behind the running turn as the trigger's multitask says (D27 § 1).
  const sent = await sendChatMessage(deps, session._id, { text, multitask: served.multitask });
  return { turnId: sent.turnId, ...(sent.position ? { queued: sent.position } : {}) };
}
