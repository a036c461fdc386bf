/**
 * A chat's transcript, built from AG-UI events (pure: no React, no network) so that the page and its tests read
 * the same rules: the assistant's text streams into its own message as deltas arrive; tool calls are listed by
 * name; child sessions become sub-workflow blocks from the `platform.sub_workflow_start/_frame/_result` custom
 * events, keyed by dispatch id and nested under their parent's block, and their text never enters the assistant's
 * messages; RUN_FINISHED's outcome ends the run (a pending decision with its options, a wait with what it waits
 * for and until when, cancelled, or the session's status); RUN_ERROR is an error entry. A transcript opened from
 * history is built from the session's stored messages ({@link fromStoredMessages}).
 *
 * Several runs may be in flight on one chat (a message sent while a turn runs, docs/decisions.md D27): every
 * event is applied for its run, every entry carries the run it came from, and a message, tool call or block is
 * looked up within its run (a rolled-back turn's message ids come back in the next turn). The runs' own rules
 * (queued, stopped, discarded) are in ./runs.ts.
 *
 * Source: spec/platform-service.md § Stream and custom events, § Errors; docs/endpoints.md § AG-UI; docs/decisions.md
 * D10 § Chat, D27 § 1.
 */
import type { MessageView, PendingView } from '../../../../../core/session/session-views.ts';
import { endRun, noteQueued, noteStopped, recount, streamingStarted } from './runs.ts';
import type { ChatEvent, DecisionOption, SubWorkflowBlock, Transcript, TranscriptItem } from './transcript-types.ts';

export type { ChatEvent, DecisionOption, RunState, RunTag, SubWorkflowBlock, Transcript, TranscriptItem } from './transcript-types.ts';

/** The run key of events applied without one (a transcript of a single run at a time). */
export const singleRun = 'run';

/** An empty transcript. */
export const emptyTranscript = (): Transcript => ({ items: [], running: false });

const finalStatuses = ['succeeded', 'failed', 'cancelled'];

/** Whether the chat's session has ended (a new message would open a fresh chat). */
export const chatEnded = (t: Transcript): boolean => t.status !== undefined && finalStatuses.includes(t.status);

/**
 * The decision the chat waits for now (the last entry, while no run streams: a message queued behind the decision
 * waits for it), if any.
 */
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

/** Finds a block by dispatch id among the entries not discarded (a rolled-back turn's ids may come back). */
function findBlock(items: TranscriptItem[], dispatchId: string): SubWorkflowBlock | undefined {
  const walk = (blocks: SubWorkflowBlock[]): SubWorkflowBlock | undefined => {
    for (const b of blocks) {
      if (b.dispatchId === dispatchId) return b;
      const inner = walk(b.children);
      if (inner) return inner;
    }
    return undefined;
  };
  return walk(items.filter((i): i is Extract<TranscriptItem, { kind: 'sub' }> => i.kind === 'sub' && !i.discarded).map((i) => i.block));
}

/** Copies the items and the block tree, so a new transcript never shares mutable parts with the old one. */
function cloneItems(items: TranscriptItem[]): TranscriptItem[] {
  const cloneBlock = (b: SubWorkflowBlock): SubWorkflowBlock => ({ ...b, frames: [...b.frames], children: b.children.map(cloneBlock) });
  return items.map((i) => (i.kind === 'sub' ? { ...i, block: cloneBlock(i.block) } : { ...i }));
}

let counter = 0;
const keyOf = (prefix: string) => `${prefix}-${(counter += 1)}`;
/** `wanted` when no entry has that key yet, else a fresh key (entries are React children keyed by `key`). */
export const uniqueKey = (items: TranscriptItem[], wanted: string): string => (items.some((i) => i.key === wanted) ? keyOf(wanted) : wanted);

type Assistant = Extract<TranscriptItem, { kind: 'assistant' }>;
type Tool = Extract<TranscriptItem, { kind: 'tool' }>;
const assistantOf = (items: TranscriptItem[], run: string, id: string | undefined) =>
  items.findLast((i): i is Assistant => i.kind === 'assistant' && i.run === run && i.messageId === id);
const toolOf = (items: TranscriptItem[], run: string, id: string | undefined) =>
  items.findLast((i): i is Tool => i.kind === 'tool' && i.run === run && i.callId === id);

/**
 * The transcript after `event` of run `run` (default {@link singleRun}). Unknown events change nothing. A
 * TEXT_MESSAGE_CONTENT for a message not opened yet opens it. Any event after `platform.queued` means the run's turn
 * started: its message is no longer queued.
 */
export function applyEvent(before: Transcript, event: ChatEvent, run: string = singleRun): Transcript {
  const t: Transcript = { ...before, items: cloneItems(before.items), runs: { ...before.runs } };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const queuedNote = event.type === 'CUSTOM' && event.name === 'platform.queued';
  if (event.type !== 'RUN_STARTED' && !queuedNote) streamingStarted(t, run);
  switch (event.type) {
    case 'RUN_STARTED':
      t.runs![run] ??= {};
      return recount({ ...t, threadId: str(event.threadId) ?? t.threadId });
    case 'TEXT_MESSAGE_START':
    case 'TEXT_MESSAGE_CONTENT': {
      const id = str(event.messageId);
      const found = assistantOf(t.items, run, id);
      const delta = event.type === 'TEXT_MESSAGE_CONTENT' ? (str(event.delta) ?? '') : '';
      if (found) found.text += delta;
      else t.items.push({ kind: 'assistant', key: uniqueKey(t.items, id ?? keyOf('m')), ...(id ? { messageId: id } : {}), run, text: delta, streaming: true });
      return t;
    }
    case 'TEXT_MESSAGE_END': {
      const found = assistantOf(t.items, run, str(event.messageId));
      if (found) found.streaming = false;
      return t;
    }
    case 'TOOL_CALL_START': {
      const id = str(event.toolCallId);
      t.items.push({ kind: 'tool', key: uniqueKey(t.items, id ?? keyOf('t')), ...(id ? { callId: id } : {}), run, name: str(event.toolCallName) ?? 'tool', done: false, args: '' });
      return t;
    }
    case 'TOOL_CALL_ARGS': {
      const found = toolOf(t.items, run, str(event.toolCallId));
      if (found) found.args += str(event.delta) ?? '';
      return t;
    }
    case 'TOOL_CALL_RESULT': {
      const found = toolOf(t.items, run, str(event.toolCallId));
      if (found) Object.assign(found, { done: true, result: excerpt(str(event.content) ?? '') });
      return t;
    }
    case 'CUSTOM':
      return applyCustom(t, { name: str(event.name) ?? '', value: (event.value ?? {}) as Record<string, unknown>, run });
    case 'RUN_FINISHED':
      return applyFinished(t, event, run);
    case 'RUN_ERROR': {
      for (const i of t.items) if (i.kind === 'assistant' && i.run === run) i.streaming = false;
      const code = str(event.code);
      t.items.push({ kind: 'error', key: keyOf('e'), run, message: str(event.message) ?? 'The run failed.', ...(code ? { code } : {}) });
      // A dropped message (the chat ended before it ran) says nothing new of the chat: the run that ended it did.
      const keepsStatus = code === 'stream_failed' || code === 'message_dropped';
      return endRun({ ...t, ...(keepsStatus ? {} : { status: 'failed' }) }, run);
    }
    default:
      return t;
  }
}

/** A custom event of run `run`. */
function applyCustom(t: Transcript, { name, value, run }: { name: string; value: Record<string, unknown>; run: string }): Transcript {
  const dispatchId = typeof value.dispatchId === 'string' ? value.dispatchId : undefined;
  const text = typeof value.message === 'string' ? value.message : undefined;
  if (name === 'platform.queued') return noteQueued(t, run, typeof value.position === 'number' ? value.position : 1);
  if (name === 'platform.notice' && value.code === 'turn_interrupted') return noteStopped(t, run, value.mode === 'rollback');
  if (name === 'platform.notice') {
    t.items.push({ kind: 'notice', key: keyOf('n'), run, text: text ?? 'Notice from the platform.' });
    return t;
  }
  if (!dispatchId) return t;
  if (name === 'platform.sub_workflow_start') {
    if (findBlock(t.items, dispatchId)) return t;
    const parent = typeof value.parent === 'string' ? value.parent : undefined;
    const block: SubWorkflowBlock = { dispatchId, ...(parent ? { parent } : {}), workflow: typeof value.workflow === 'string' ? value.workflow : 'workflow', frames: [], children: [] };
    const parentBlock = parent ? findBlock(t.items, parent) : undefined;
    if (parentBlock) parentBlock.children.push(block);
    else t.items.push({ kind: 'sub', key: uniqueKey(t.items, `sub-${dispatchId}`), run, block });
    return t;
  }
  const block = findBlock(t.items, dispatchId);
  if (!block) return t;
  if (name === 'platform.sub_workflow_frame') {
    const frame = frameText(value.message as Record<string, unknown> | undefined);
    if (frame.text) block.frames.push(frame);
  } else if (name === 'platform.sub_workflow_result') {
    block.result = { status: typeof value.status === 'string' ? value.status : 'ended', ...(text ? { message: text } : {}) };
  }
  return t;
}

/** RUN_FINISHED of run `run`: its outcome (a decision, a wait, cancelled) and the session's status. */
function applyFinished(t: Transcript, event: ChatEvent, run: string): Transcript {
  for (const i of t.items) if (i.kind === 'assistant' && i.run === run) i.streaming = false;
  const result = (event.result ?? {}) as { status?: string; sessionId?: string; interrupted?: boolean };
  const outcome = (event.outcome ?? {}) as { type?: string; interrupts?: { id: string; reason: string; message?: string; expiresAt?: string; metadata?: { options?: DecisionOption[] }; responseSchema?: { properties?: { to?: { enum?: string[] } } } }[] };
  const next: Transcript = { ...t, ...(result.status ? { status: result.status } : {}), ...(result.sessionId ? { sessionId: result.sessionId } : {}) };
  if (outcome.type === 'interrupt') {
    for (const interrupt of outcome.interrupts ?? []) {
      if (interrupt.reason === 'decision') {
        const options = interrupt.metadata?.options ?? (interrupt.responseSchema?.properties?.to?.enum ?? []).map((to) => ({ to, description: '' }));
        next.items.push({ kind: 'decision', key: uniqueKey(next.items, `decision-${interrupt.id}`), run, interruptId: interrupt.id, message: interrupt.message ?? 'A decision is needed.', options });
      } else if (interrupt.reason === 'wait') {
        next.items.push({ kind: 'wait', key: uniqueKey(next.items, `wait-${interrupt.id}`), run, interruptId: interrupt.id, message: interrupt.message ?? 'Waiting.', ...(interrupt.expiresAt ? { expiresAt: interrupt.expiresAt } : {}) });
      }
    }
  } else if (outcome.type === 'cancelled') {
    next.status = 'cancelled';
  }
  // A turn that leaves the chat waiting for input (or was stopped) hands it to the first message queued behind it.
  return endRun(next, run, { handsOver: result.interrupted === true || result.status === 'awaiting_input' });
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
