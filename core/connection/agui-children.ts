/**
 * A chat's child sessions (workflow calls) on its AG-UI stream: the custom events `platform.sub_workflow_start`,
 * `platform.sub_workflow_frame` (each child message) and `platform.sub_workflow_result`, each naming the child by its
 * dispatch id and its parent's when nested. Only the run's children: those open when it started and those opened
 * since.
 *
 * Source: spec/platform-service.md § Stream and custom events; docs/decisions.md D8 § Endpoints (AG-UI).
 */
import { EventType } from '@ag-ui/core';
import { finalStatuses, sessionCollections } from '../session/model.ts';
import type { MessageRecord } from '../session/thread-model.ts';
import { sessionsOf, type SessionStoreDeps } from '../session/session-store.ts';

const messagesOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<MessageRecord>(sessionCollections.messages);

/** A child session followed by the stream. */
export interface FollowedChild {
  dispatchId: string;
  parent?: string;
  workflow: string;
  nextSeq: number;
  ended: boolean;
  started: boolean;
  lastText?: string;
}

/** What {@link followChildren} reads from, and the stream's running record of the children it follows. */
export interface ChildFollowing {
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
export async function followChildren(
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
