/**
 * The chat's own messages as AG-UI events: a reply's text as the model writes it (the dispatcher's live text
 * deltas), completed and closed from its checkpoint record, which is the truth (a missed delta only means the rest
 * comes whole); tool calls and their results from the records. A child session's text never enters them.
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3), § Stream and custom events; docs/decisions.md D8 §
 * Endpoints (AG-UI).
 */
import { EventType } from '@ag-ui/core';
import type { TextDelta } from '../ports/text-deltas.ts';
import type { MessageRecord } from '../session/thread-model.ts';

/**
 * The root thread's messages as events: live text deltas open a message as they arrive (only from its first
 * character, in order); its record then completes it with whatever was not streamed and closes it. Records are the
 * truth: a message whose deltas were missed is shown whole, and a delta after its record is dropped.
 */
export class LiveText {
  nextSeq: number;
  /** Messages opened by deltas: characters streamed so far, and whether the deltas stopped lining up. */
  private readonly open = new Map<string, { length: number; broken: boolean }>();

  constructor(private readonly root: string, fromSeq: number, private readonly emit: (event: object) => void) {
    this.nextSeq = fromSeq;
  }

  delta(delta: TextDelta): void {
    if (delta.sessionId !== this.root) return; // a child's text never enters the chat's messages
    if (Number(delta.messageId.slice(this.root.length + 1)) < this.nextSeq) return;
    const streamed = this.open.get(delta.messageId);
    if (!streamed) {
      if (delta.offset !== 0) return;
      this.open.set(delta.messageId, { length: delta.text.length, broken: false });
      this.emit({ type: EventType.TEXT_MESSAGE_START, messageId: delta.messageId, role: 'assistant' });
      if (delta.text) {
        this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: delta.messageId, delta: delta.text });
      }
      return;
    }
    if (streamed.broken || delta.offset !== streamed.length) {
      streamed.broken = true;
      return;
    }
    streamed.length += delta.text.length;
    if (delta.text) this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: delta.messageId, delta: delta.text });
  }

  record(record: MessageRecord): void {
    this.nextSeq = record.seq + 1;
    const streamed = this.open.get(record._id);
    this.open.delete(record._id);
    for (const event of messageEvents(record, streamed?.length)) this.emit(event);
  }

  /** Ends messages whose record never came (a model call that failed mid-reply). */
  closeOpen(): void {
    for (const messageId of this.open.keys()) this.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    this.open.clear();
  }
}

/**
 * The AG-UI events of one root-thread message (user messages are the caller's own and are not echoed).
 * @param streamed - characters of its text already streamed live (its TEXT_MESSAGE_START already sent)
 */
export function messageEvents(record: MessageRecord, streamed?: number): object[] {
  const message = record.message;
  const messageId = record._id;
  if (message.role === 'assistant') {
    const events: object[] = [];
    if (streamed !== undefined) {
      const rest = message.content.slice(streamed);
      if (rest) events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: rest });
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId });
    } else if (message.content.length > 0) {
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }, {
        type: EventType.TEXT_MESSAGE_CONTENT,
        messageId,
        delta: message.content,
      }, { type: EventType.TEXT_MESSAGE_END, messageId });
    }
    for (const call of message.toolCalls ?? []) {
      events.push(
        { type: EventType.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.name, parentMessageId: messageId },
        { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: JSON.stringify(call.input ?? {}) },
        { type: EventType.TOOL_CALL_END, toolCallId: call.id },
      );
    }
    return events;
  }
  if (message.role === 'tool') {
    return message.results.map((r, i) => ({
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${messageId}:${i}`,
      toolCallId: r.callId,
      role: 'tool',
      content: typeof r.output === 'string' ? r.output : JSON.stringify(r.output ?? null),
    }));
  }
  return [];
}
