/**
 * The events of one AG-UI run, read from the checkpoint records while the turn runs on a dispatcher: RUN_STARTED
 * with the thread id to send next (for a public or bearer-token caller followed by the custom event
 * `platform.thread_secret` {threadId, threadSecret}: the secret to send with it); the assistant's messages and tool
 * calls as they are checkpointed (text as TEXT_MESSAGE_START/CONTENT/END, calls as TOOL_CALL_START/ARGS/END and
 * TOOL_CALL_RESULT); child sessions as the custom events `platform.sub_workflow_start`,
 * `platform.sub_workflow_frame` (each child message) and `platform.sub_workflow_result`, each naming the child by
 * its dispatch id and its parent's when nested (a child's text never enters the parent's messages); then
 * RUN_FINISHED, whose outcome is an interrupt describing a pending decision or wait (a resume entry answers it by
 * id), `cancelled`, or success; a failed turn ends with RUN_ERROR.
 *
 * The turn runs in a dispatcher: the checkpoint records are the truth every replica can read, and the live text
 * deltas the dispatcher publishes (TextDeltas) stream a reply's text as the model writes it; a missed delta only
 * means the rest of that reply comes whole once it is recorded. The stream reads the records once when it starts
 * and then once per change: it waits on the process's ChangeWatch (core/session/change-watch.ts: a notification after
 * each
 * checkpoint, settle, claim or cancel, or the watch's safety read), not on a timer.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 3, 4, 5, 6), § Stream and custom events,
 * § Tool-call result status (AG-UI turn parked); docs/decisions.md D8 § Endpoints (AG-UI).
 */
import { type BaseEvent, EventType } from '@ag-ui/core';
import {
  finalStatuses,
  type PendingWork,
  sessionCollections,
  type SessionRecord,
  type TurnRecord,
} from '../session/model.ts';
import type { MessageRecord } from '../session/thread-model.ts';
import { fieldsJsonSchema } from '../session/decision-terms.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from '../session/session-store.ts';
import { settledSession } from '../session/turn-settle.ts';
import type { TextDelta, TextDeltas } from '../ports/text-deltas.ts';
import type { StartedRun } from './agui-runs.ts';
import { type ChangeWatch, Wakeup } from '../session/change-watch.ts';

/** What the stream reads and how often. */
export interface AguiStreamDeps extends Pick<SessionStoreDeps, 'docs'> {
  /** Live text of model calls (absent: each reply is streamed whole once it is recorded). */
  textDeltas?: TextDeltas;
  /** Wakes the stream when the chat's records change (absent: the records are read every `pollMs`). */
  watch?: ChangeWatch;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /** Without a `watch`, how often the records are read while the turn runs (ms; default 100). */
  pollMs?: number;
  now(): number;
}

/** A child session followed by the stream. */
interface FollowedChild {
  dispatchId: string;
  parent?: string;
  workflow: string;
  nextSeq: number;
  ended: boolean;
  started: boolean;
  lastText?: string;
}

const messagesOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<MessageRecord>(sessionCollections.messages);

/**
 * Emits the run's events until its turn settles or `signal` aborts (the caller went away: the turn carries on).
 * @param emit - receives each event in order
 */
export async function streamRun(
  deps: AguiStreamDeps,
  run: StartedRun,
  emit: (event: BaseEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const stamp = <E extends object>(event: E): BaseEvent =>
    ({ ...event, timestamp: deps.now() }) as unknown as BaseEvent;
  const secret = run.threadSecret;
  const { threadId, runId } = run;
  emit(stamp({ type: EventType.RUN_STARTED, threadId, runId }));
  // A custom event, not a field of RUN_STARTED: clients (and the binary encoding) keep only the protocol's own fields.
  if (secret) {
    emit(stamp({ type: EventType.CUSTOM, name: 'platform.thread_secret', value: { threadId, threadSecret: secret } }));
  }
  if (run.ignored) {
    emit(
      stamp({
        type: EventType.CUSTOM,
        name: 'platform.notice',
        value: { code: 'client_tools_ignored', message: run.ignored },
      }),
    );
  }
  const root = run.session._id;
  // A message queued behind a running turn (D27 § 1): nothing of the chat is streamed until its turn starts.
  let waiting = run.queued !== undefined;
  if (waiting) {
    emit(
      stamp({ type: EventType.CUSTOM, name: 'platform.queued', value: { position: run.queued, turnId: run.turnId } }),
    );
  }
  const live = new LiveText(root, waiting ? Number.MAX_SAFE_INTEGER : run.fromSeq, (event) => emit(stamp(event)));
  const unsubscribe = deps.textDeltas
    ? await deps.textDeltas.subscribe(root, (delta) => live.delta(delta)).catch(() => undefined)
    : undefined;
  const children = new Map<string, FollowedChild>();
  const open = new Map(run.openChildren.map((c) => [c.sessionId, c.fromSeq]));
  const dispatchOf = new Map<string, string>();
  let turn: TurnRecord | null = null;
  const wake = new Wakeup();
  let stopFollowing: (() => void) | undefined;
  try {
    // Followed before the first read: a change after it wakes the stream for one more read.
    stopFollowing = await deps.watch?.follow({ rootId: root, turnId: run.turnId }, wake.notify);
    for (;;) {
      turn = await turnsOf(deps).findOne({ _id: run.turnId });
      if (waiting) {
        const started = await queuedTurnStart(deps, root, turn);
        if (started === 'dropped') return emit(stamp(droppedEvent(await sessionsOf(deps).findOne({ _id: root }))));
        if (started !== undefined) {
          live.nextSeq = started;
          waiting = false;
        }
      }
      // A settled turn's session is written right after it: the run ends once that write landed, so a message sent on
      // RUN_FINISHED finds the chat waiting for input (not `running`, which `reject` would refuse; D27 § 1).
      const settled = !waiting && (!turn || (turn.status !== 'queued' && turn.status !== 'running')) &&
        !(await sessionWriteDue(deps, root, turn));
      for (
        const record of await messagesOf(deps).find({ sessionId: root, seq: { $gte: live.nextSeq } }, {
          sort: { seq: 1 },
        })
      ) {
        // Only this run's turn: a message queued behind it may start its own turn before this one's last read.
        if (record.turnId === run.turnId) live.record(record);
        else live.nextSeq = record.seq + 1;
      }
      await followChildren(deps, root, {
        since: run.since,
        children,
        open,
        dispatchOf,
        emit: (event) => emit(stamp(event)),
      });
      if (settled) break;
      if (signal?.aborted) return;
      if (stopFollowing) await wake.wait(undefined, signal);
      else await deps.sleep(deps.pollMs ?? 100);
      if (signal?.aborted) return;
    }
  } finally {
    unsubscribe?.();
    stopFollowing?.();
  }
  live.closeOpen();
  // The thread is recorded before the run ends, so the next run on it continues the chat (agui-runs.ts `recorded`).
  await run.recorded;
  const session = await sessionsOf(deps).findOne({ _id: root });
  if (turn?.interrupted) {
    const message = 'A new message stopped this turn before its next model call' +
      (turn.interrupted === 'rollback' ? '; what it did was discarded.' : '; what it did is kept.');
    emit(
      stamp({
        type: EventType.CUSTOM,
        name: 'platform.notice',
        value: { code: 'turn_interrupted', mode: turn.interrupted, message },
      }),
    );
  }
  emit(stamp(finishEvent(run, session && settledSession(session, turn), turn?.interrupted)));
}

/**
 * True while `turn` has settled but its session is still `running` under the turn's lease: the settle's second write
 * (./turn-settle.ts) has not landed yet, or its process died in between and the turn sweep will write it.
 */
async function sessionWriteDue(
  deps: Pick<SessionStoreDeps, 'docs'>,
  root: string,
  turn: TurnRecord | null,
): Promise<boolean> {
  if (!turn?.lease) return false;
  const session = await sessionsOf(deps).findOne({ _id: root });
  return session?.status === 'running' && session.lease === turn.lease;
}

/**
 * Where a queued message's turn starts in the thread, once it is inserted: the first message it wrote, or the
 * count when it wrote none yet (read before its messages, so none is missed). `dropped`: the chat ended without it.
 */
async function queuedTurnStart(
  deps: Pick<SessionStoreDeps, 'docs'>,
  root: string,
  turn: TurnRecord | null,
): Promise<number | 'dropped' | undefined> {
  const session = await sessionsOf(deps).findOne({ _id: root });
  if (!turn) return !session || finalStatuses.includes(session.status) ? 'dropped' : undefined;
  const [first] = await messagesOf(deps).find({ sessionId: root, turnId: turn._id }, { sort: { seq: 1 }, limit: 1 });
  return Math.min(first?.seq ?? Number.MAX_SAFE_INTEGER, session?.messageCount ?? 0);
}

/** RUN_ERROR of a queued message the chat ended before (cancelled, failed or done): it never ran. */
function droppedEvent(session: SessionRecord | null): object {
  const why = session ? `it is ${session.status}` : 'it was not found';
  return {
    type: EventType.RUN_ERROR,
    code: 'message_dropped',
    message: `The chat ended before this message ran (${why}); it was not sent to the workflow.`,
  };
}

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

/** What {@link followChildren} reads from, and the stream's running record of the children it follows. */
interface ChildFollowing {
  /** When the run started: a child created before it, and not in `open`, belongs to an earlier run. */
  since: Date;
  /** The children followed so far, by session id (updated in place). */
  children: Map<string, FollowedChild>;
  /** The children open when the run started, with the message count to stream them from. */
  open: Map<string, number>;
  /** The dispatch id each child's events carry, by session id (updated in place). */
  dispatchOf: Map<string, string>;
  /** Sends one event to the stream. */
  emit: (event: object) => void;
}

/** Reads the root's child sessions and emits start, frames and result of each as it goes. */
async function followChildren(
  deps: Pick<SessionStoreDeps, 'docs'>,
  root: string,
  { since, children, open, dispatchOf, emit }: ChildFollowing,
): Promise<void> {
  const found = await sessionsOf(deps).find({ rootId: root }, { sort: { createdAt: 1 } });
  for (const child of found) {
    dispatchOf.set(child._id, child.dispatchId ?? child._id);
    let followed = children.get(child._id);
    if (!followed) {
      const wasOpen = open.has(child._id);
      // Only this run's children: those open when it started, and those opened since.
      if (!wasOpen && new Date(child.createdAt).getTime() < since.getTime()) continue;
      const parent = child.parentId && child.parentId !== root ? dispatchOf.get(child.parentId) : undefined;
      followed = {
        dispatchId: child.dispatchId ?? child._id,
        ...(parent ? { parent } : {}),
        workflow: child.workflow,
        nextSeq: open.get(child._id) ?? 0,
        ended: false,
        started: wasOpen,
      };
      children.set(child._id, followed);
    }
    if (followed.ended) continue;
    const who = { dispatchId: followed.dispatchId, ...(followed.parent ? { parent: followed.parent } : {}) };
    if (!followed.started) {
      followed.started = true;
      emit({
        type: EventType.CUSTOM,
        name: 'platform.sub_workflow_start',
        value: { ...who, workflow: followed.workflow },
      });
    }
    for (
      const record of await messagesOf(deps).find({ sessionId: child._id, seq: { $gte: followed.nextSeq } }, {
        sort: { seq: 1 },
      })
    ) {
      followed.nextSeq = record.seq + 1;
      if (record.message.role === 'assistant' && record.message.content.trim()) {
        followed.lastText = record.message.content;
      }
      emit({
        type: EventType.CUSTOM,
        name: 'platform.sub_workflow_frame',
        value: { ...who, message: frameOf(record) },
      });
    }
    if (!finalStatuses.includes(child.status)) continue;
    followed.ended = true;
    emit({
      type: EventType.CUSTOM,
      name: 'platform.sub_workflow_result',
      value: {
        ...who,
        status: child.status,
        ...(followed.lastText ? { message: followed.lastText } : {}),
        ...(child.error ? { error: child.error } : {}),
      },
    });
  }
}

/** A child message as a frame: its id, role, text, tool calls and results. */
function frameOf(record: MessageRecord): Record<string, unknown> {
  const m = record.message;
  if (m.role === 'tool') {
    return {
      id: record._id,
      role: 'tool',
      results: m.results.map((r) => ({
        toolCallId: r.callId,
        name: r.name,
        content: r.output,
        ...(r.isError ? { isError: true } : {}),
      })),
    };
  }
  if (m.role === 'assistant') {
    return {
      id: record._id,
      role: 'assistant',
      content: m.content,
      ...(m.toolCalls?.length
        ? { toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.input })) }
        : {}),
    };
  }
  return { id: record._id, role: m.role, content: m.content };
}

/**
 * The JSON Schema of a decision interrupt's resume payload: `{to, comment?, fields?}`, `fields` the JSON Schema of
 * the decision's declared fields (type object, properties, required), required when one of them is
 * (docs/decisions.md D26 § 2).
 */
export function decisionResponseSchema(pending: Extract<PendingWork, { kind: 'decision' }>): Record<string, unknown> {
  const fields = fieldsJsonSchema(pending.fields);
  const needsFields = (fields.required as string[]).length > 0;
  return {
    type: 'object',
    properties: {
      to: { type: 'string', enum: pending.options.map((o) => o.to) },
      comment: { type: 'string' },
      ...(pending.fields ? { fields } : {}),
    },
    required: needsFields ? ['to', 'fields'] : ['to'],
  };
}

/**
 * RUN_FINISHED (with its outcome) or RUN_ERROR for the session as its turn left it; a turn a new message stopped
 * finishes with `result.interrupted` (D27 § 1).
 */
export function finishEvent(
  run: Pick<StartedRun, 'threadId' | 'runId'>,
  session: SessionRecord | null,
  interrupted?: TurnRecord['interrupted'],
): object {
  const base = { threadId: run.threadId, runId: run.runId };
  if (!session) return { type: EventType.RUN_ERROR, message: "The chat's session was not found.", code: 'not_found' };
  const result = { status: session.status, sessionId: session._id, ...(interrupted ? { interrupted: true } : {}) };
  const pending = session.pending;
  if (session.status === 'awaiting_decision' && pending?.kind === 'decision') {
    const choices = pending.options.map((o) => `${o.to} (${o.description})`).join('; ');
    return {
      type: EventType.RUN_FINISHED,
      ...base,
      result,
      outcome: {
        type: 'interrupt',
        interrupts: [{
          id: pending.id,
          reason: 'decision',
          message: `A decision is needed in state ${pending.state}: ${choices}.`,
          ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
          responseSchema: decisionResponseSchema(pending),
          metadata: {
            state: pending.state,
            options: pending.options,
            ...(pending.dispatchId ? { dispatchId: pending.dispatchId } : {}),
            ...(pending.expiresTo ? { expiresTo: pending.expiresTo } : {}),
            ...(pending.fields ? { fields: pending.fields } : {}),
          },
        }],
      },
    };
  }
  if (session.status === 'awaiting_input' && pending?.kind === 'input' && pending.wait) {
    return {
      type: EventType.RUN_FINISHED,
      ...base,
      result,
      outcome: {
        type: 'interrupt',
        interrupts: [{
          id: pending.id,
          reason: 'wait',
          message: pending.reason,
          ...(pending.until ? { expiresAt: pending.until } : {}),
          responseSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        }],
      },
    };
  }
  if (session.status === 'cancelled') {
    return { type: EventType.RUN_FINISHED, ...base, result, outcome: { type: 'cancelled' } };
  }
  if (session.status === 'failed') {
    return {
      type: EventType.RUN_ERROR,
      message: session.error?.message ?? 'The turn failed.',
      code: session.error?.code ?? 'failed',
    };
  }
  return { type: EventType.RUN_FINISHED, ...base, result, outcome: { type: 'success' } };
}
