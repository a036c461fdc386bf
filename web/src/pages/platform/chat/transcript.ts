/**
 * A chat's transcript, built from AG-UI events (pure: no React, no network) so that the page and its tests read
 * the same rules: the assistant's text streams into its own message as deltas arrive; tool calls are listed by
 * name; child sessions become sub-workflow blocks from the `platform.sub_workflow_start/_frame/_result` custom
 * events, keyed by dispatch id and nested under their parent's block, and their text never enters the assistant's
 * messages; RUN_FINISHED's outcome ends the run (a pending decision with its options, a wait with what it waits
 * for and until when, cancelled, or the session's status); RUN_ERROR is an error entry. A transcript opened from
 * history is built from the session's stored messages ({@link fromStoredMessages}).
 *
 * Source: spec/platform-service.md § Stream and custom events, § Errors; docs/endpoints.md § AG-UI; docs/decisions.md
 * D10 § Chat.
 */
import type { MessageView, PendingView } from '../../../../../core/session/session-views.ts';

/** One AG-UI event as the page sees it (the fields it reads). */
export type ChatEvent = { type: string } & Record<string, unknown>;

/** A decision option. */
export interface DecisionOption { to: string; description: string }

/** A child session's block: its messages as frames, nested children, and its result once it ended. */
export interface SubWorkflowBlock {
  dispatchId: string;
  parent?: string;
  workflow: string;
  frames: { role: string; text: string }[];
  children: SubWorkflowBlock[];
  result?: { status: string; message?: string };
}

/** One entry of the transcript, in order. */
export type TranscriptItem =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; streaming: boolean }
  /** A tool call: `args` its input as sent (JSON text), `result` what came back (at most {@link toolResultChars}). */
  | { kind: 'tool'; key: string; name: string; done: boolean; isError?: boolean; args: string; result?: string }
  | { kind: 'sub'; key: string; block: SubWorkflowBlock }
  | { kind: 'decision'; key: string; interruptId: string; message: string; options: DecisionOption[] }
  | { kind: 'wait'; key: string; interruptId: string; message: string; expiresAt?: string }
  | { kind: 'notice'; key: string; text: string }
  | { kind: 'error'; key: string; code?: string; message: string };

/** A transcript and where the chat stands. */
export interface Transcript {
  items: TranscriptItem[];
  /** The thread id the platform issued (RUN_STARTED); send it next. */
  threadId?: string;
  sessionId?: string;
  /** The session's status as the last run left it (`awaiting_input`, `awaiting_decision`, `succeeded`, …). */
  status?: string;
  /** True between RUN_STARTED and RUN_FINISHED/RUN_ERROR. */
  running: boolean;
}

/** An empty transcript. */
export const emptyTranscript = (): Transcript => ({ items: [], running: false });

const finalStatuses = ['succeeded', 'failed', 'cancelled'];

/** Whether the chat's session has ended (a new message would open a fresh chat). */
export const chatEnded = (t: Transcript): boolean => t.status !== undefined && finalStatuses.includes(t.status);

/** The decision the chat waits for now (the last entry, while no run is going), if any. */
export function pendingDecision(t: Transcript): Extract<TranscriptItem, { kind: 'decision' }> | undefined {
  const last = t.items.at(-1);
  return !t.running && t.status === 'awaiting_decision' && last?.kind === 'decision' ? last : undefined;
}

/** The text of a frame's message (assistant or user text, tool calls or results named). */
function frameText(message: Record<string, unknown> | undefined): { role: string; text: string } {
  const role = typeof message?.role === 'string' ? message.role : 'assistant';
  if (role === 'tool') {
    const results = Array.isArray(message?.results) ? message.results as { name?: string }[] : [];
    return { role, text: `Tool result: ${results.map((r) => r.name ?? 'tool').join(', ')}` };
  }
  const content = typeof message?.content === 'string' ? message.content : '';
  const calls = Array.isArray(message?.toolCalls) ? (message.toolCalls as { name?: string }[]).map((c) => c.name ?? 'tool') : [];
  return { role, text: [content.trim(), calls.length ? `Calls ${calls.join(', ')}` : ''].filter(Boolean).join(' · ') };
}

/** Finds a block by dispatch id anywhere in the transcript. */
function findBlock(items: TranscriptItem[], dispatchId: string): SubWorkflowBlock | undefined {
  const walk = (blocks: SubWorkflowBlock[]): SubWorkflowBlock | undefined => {
    for (const b of blocks) {
      if (b.dispatchId === dispatchId) return b;
      const inner = walk(b.children);
      if (inner) return inner;
    }
    return undefined;
  };
  return walk(items.filter((i): i is Extract<TranscriptItem, { kind: 'sub' }> => i.kind === 'sub').map((i) => i.block));
}

/** Copies the items and the block tree, so a new transcript never shares mutable parts with the old one. */
function cloneItems(items: TranscriptItem[]): TranscriptItem[] {
  const cloneBlock = (b: SubWorkflowBlock): SubWorkflowBlock => ({ ...b, frames: [...b.frames], children: b.children.map(cloneBlock) });
  return items.map((i) => (i.kind === 'sub' ? { ...i, block: cloneBlock(i.block) } : { ...i }));
}

let counter = 0;
const keyOf = (prefix: string) => `${prefix}-${(counter += 1)}`;

/**
 * The transcript after `event`. Unknown events change nothing. A TEXT_MESSAGE_CONTENT for a message not opened
 * yet opens it.
 */
export function applyEvent(before: Transcript, event: ChatEvent): Transcript {
  const t: Transcript = { ...before, items: cloneItems(before.items) };
  const items = t.items;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  switch (event.type) {
    case 'RUN_STARTED':
      return { ...t, threadId: str(event.threadId) ?? t.threadId, running: true };
    case 'TEXT_MESSAGE_START': {
      const id = str(event.messageId) ?? keyOf('m');
      if (!items.some((i) => i.kind === 'assistant' && i.key === id)) items.push({ kind: 'assistant', key: id, text: '', streaming: true });
      return t;
    }
    case 'TEXT_MESSAGE_CONTENT': {
      const id = str(event.messageId) ?? keyOf('m');
      const found = items.find((i): i is Extract<TranscriptItem, { kind: 'assistant' }> => i.kind === 'assistant' && i.key === id);
      if (found) found.text += str(event.delta) ?? '';
      else items.push({ kind: 'assistant', key: id, text: str(event.delta) ?? '', streaming: true });
      return t;
    }
    case 'TEXT_MESSAGE_END': {
      const found = items.find((i) => i.kind === 'assistant' && i.key === str(event.messageId));
      if (found && found.kind === 'assistant') found.streaming = false;
      return t;
    }
    case 'TOOL_CALL_START':
      items.push({ kind: 'tool', key: str(event.toolCallId) ?? keyOf('t'), name: str(event.toolCallName) ?? 'tool', done: false, args: '' });
      return t;
    case 'TOOL_CALL_ARGS': {
      const found = items.find((i) => i.kind === 'tool' && i.key === str(event.toolCallId));
      if (found && found.kind === 'tool') found.args += str(event.delta) ?? '';
      return t;
    }
    case 'TOOL_CALL_RESULT': {
      const found = items.find((i) => i.kind === 'tool' && i.key === str(event.toolCallId));
      if (found && found.kind === 'tool') Object.assign(found, { done: true, result: excerpt(str(event.content) ?? '') });
      return t;
    }
    case 'CUSTOM':
      return applyCustom(t, str(event.name) ?? '', (event.value ?? {}) as Record<string, unknown>);
    case 'RUN_FINISHED':
      return applyFinished({ ...t, running: false }, event);
    case 'RUN_ERROR':
      for (const i of items) if (i.kind === 'assistant') i.streaming = false;
      items.push({ kind: 'error', key: keyOf('e'), message: str(event.message) ?? 'The run failed.', ...(str(event.code) ? { code: str(event.code) } : {}) });
      return { ...t, running: false, ...(str(event.code) === 'stream_failed' ? {} : { status: 'failed' }) };
    default:
      return t;
  }
}

function applyCustom(t: Transcript, name: string, value: Record<string, unknown>): Transcript {
  const dispatchId = typeof value.dispatchId === 'string' ? value.dispatchId : undefined;
  if (name === 'platform.notice') {
    t.items.push({ kind: 'notice', key: keyOf('n'), text: typeof value.message === 'string' ? value.message : 'Notice from the platform.' });
    return t;
  }
  if (!dispatchId) return t;
  if (name === 'platform.sub_workflow_start') {
    if (findBlock(t.items, dispatchId)) return t;
    const parent = typeof value.parent === 'string' ? value.parent : undefined;
    const block: SubWorkflowBlock = { dispatchId, ...(parent ? { parent } : {}), workflow: typeof value.workflow === 'string' ? value.workflow : 'workflow', frames: [], children: [] };
    const parentBlock = parent ? findBlock(t.items, parent) : undefined;
    if (parentBlock) parentBlock.children.push(block);
    else t.items.push({ kind: 'sub', key: `sub-${dispatchId}`, block });
    return t;
  }
  const block = findBlock(t.items, dispatchId);
  if (!block) return t;
  if (name === 'platform.sub_workflow_frame') {
    const frame = frameText(value.message as Record<string, unknown> | undefined);
    if (frame.text) block.frames.push(frame);
  } else if (name === 'platform.sub_workflow_result') {
    block.result = { status: typeof value.status === 'string' ? value.status : 'ended', ...(typeof value.message === 'string' ? { message: value.message } : {}) };
  }
  return t;
}

function applyFinished(t: Transcript, event: ChatEvent): Transcript {
  for (const i of t.items) if (i.kind === 'assistant') i.streaming = false;
  const result = (event.result ?? {}) as { status?: string; sessionId?: string };
  const outcome = (event.outcome ?? {}) as { type?: string; interrupts?: { id: string; reason: string; message?: string; expiresAt?: string; metadata?: { options?: DecisionOption[] }; responseSchema?: { properties?: { to?: { enum?: string[] } } } }[] };
  const next: Transcript = { ...t, ...(result.status ? { status: result.status } : {}), ...(result.sessionId ? { sessionId: result.sessionId } : {}) };
  if (outcome.type === 'interrupt') {
    for (const interrupt of outcome.interrupts ?? []) {
      if (interrupt.reason === 'decision') {
        const options = interrupt.metadata?.options ?? (interrupt.responseSchema?.properties?.to?.enum ?? []).map((to) => ({ to, description: '' }));
        next.items.push({ kind: 'decision', key: `decision-${interrupt.id}`, interruptId: interrupt.id, message: interrupt.message ?? 'A decision is needed.', options });
      } else if (interrupt.reason === 'wait') {
        next.items.push({ kind: 'wait', key: `wait-${interrupt.id}`, interruptId: interrupt.id, message: interrupt.message ?? 'Waiting.', ...(interrupt.expiresAt ? { expiresAt: interrupt.expiresAt } : {}) });
      }
    }
  } else if (outcome.type === 'cancelled') {
    next.status = 'cancelled';
  }
  return next;
}

/** At most this many characters of a tool's result are kept for the page. */
export const toolResultChars = 4000;

function excerpt(text: string): string {
  return text.length > toolResultChars ? `${text.slice(0, toolResultChars)}… (${text.length - toolResultChars} more characters)` : text;
}

/** The text of a stored tool input or output. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** The transcript of a chat opened from history: the session's stored user and assistant messages, and what it waits for. */
export function fromStoredMessages(messages: MessageView[], session: { id: string; status: string; pending: PendingView }, threadId: string): Transcript {
  const items: TranscriptItem[] = [];
  const calls = new Map<string, Extract<TranscriptItem, { kind: 'tool' }>>();
  for (const m of messages) {
    const message = m.message;
    if (message.role === 'user' && message.content.trim()) items.push({ kind: 'user', key: `s${m.seq}`, text: message.content });
    else if (message.role === 'assistant') {
      if (message.content.trim()) items.push({ kind: 'assistant', key: `s${m.seq}`, text: message.content, streaming: false });
      for (const call of message.toolCalls ?? []) {
        const item = { kind: 'tool' as const, key: `s${m.seq}-${call.id}`, name: call.name, done: true, args: asText(call.input ?? {}) };
        calls.set(call.id, item);
        items.push(item);
      }
    } else if (message.role === 'tool') {
      for (const r of message.results) {
        const item = calls.get(r.callId);
        if (item) Object.assign(item, { done: true, result: excerpt(asText(r.output)), ...(r.isError ? { isError: true } : {}) });
      }
    }
  }
  const pending = session.pending;
  if (session.status === 'awaiting_decision' && pending?.kind === 'decision') {
    items.push({ kind: 'decision', key: `decision-${pending.id}`, interruptId: pending.id, message: `A decision is needed in state ${pending.state}.`, options: pending.options });
  } else if (pending?.kind === 'input' && pending.wait) {
    items.push({ kind: 'wait', key: `wait-${pending.id}`, interruptId: pending.id, message: pending.reason, ...(pending.until ? { expiresAt: pending.until } : {}) });
  }
  return { items, threadId, sessionId: session.id, status: session.status, running: false };
}
