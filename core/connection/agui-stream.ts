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
 * each checkpoint, settle, claim or cancel, or the watch's safety read), not on a timer. The chat's own messages are
 * ./agui-live-text.ts, its children ./agui-children.ts, the run's end ./agui-finish.ts.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 3, 4, 5, 6), § Stream and custom events,
 * § Tool-call result status (AG-UI turn parked); docs/decisions.md D8 § Endpoints (AG-UI).
 */
import { type BaseEvent, EventType } from '@ag-ui/core';
import { finalStatuses, sessionCollections, type TurnRecord } from '../session/model.ts';
import type { MessageRecord } from '../session/thread-model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from '../session/session-store.ts';
import { settledSession } from '../session/turn-settle.ts';
import type { TextDeltas } from '../ports/text-deltas.ts';
import { type AguiRun, type OpeningRun, type StartedRun, unexpectedFailure } from './agui-run-model.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import type { Logger } from '../ports/logger.ts';
import { type ChangeWatch, Wakeup } from '../session/change-watch.ts';
import { followChildren, type FollowedChild } from './agui-children.ts';
import { droppedEvent, finishEvent } from './agui-finish.ts';
import { LiveText } from './agui-live-text.ts';

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
  /**
   * Resolves once the events emitted so far can reach the client (the host's next turn of its event loop): an
   * opening run's writes start after it, so a store that blocks the thread does not hold RUN_STARTED back. Absent:
   * they start at once.
   */
  flush?(): Promise<void>;
  /** Where an opening run's unexpected failure is logged (absent: not logged). */
  logger?: Logger;
}

const messagesOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<MessageRecord>(sessionCollections.messages);

/** Sends one event, stamped with the time. */
type Emit = (event: object) => void;

/** What a run's stream keeps between its reads of the records. */
interface Following {
  run: StartedRun;
  root: string;
  live: LiveText;
  /** True while a queued message's turn has not started (D27 § 1). */
  waiting: boolean;
  children: Map<string, FollowedChild>;
  open: Map<string, number>;
  dispatchOf: Map<string, string>;
  turn: TurnRecord | null;
  emit: Emit;
}

/**
 * Emits the run's events until its turn settles or `signal` aborts (the caller went away: the turn carries on).
 * @param emit - receives each event in order
 */
export async function streamRun(
  deps: AguiStreamDeps,
  aguiRun: AguiRun,
  emit: (event: BaseEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const stamped: Emit = (event) => emit({ ...event, timestamp: deps.now() } as unknown as BaseEvent);
  openingEvents(aguiRun, stamped);
  const run = 'open' in aguiRun ? await openedRun(deps, aguiRun, stamped) : aguiRun;
  if (!run) return;
  if (run.queued !== undefined) {
    stamped({ type: EventType.CUSTOM, name: 'platform.queued', value: { position: run.queued, turnId: run.turnId } });
  }
  const root = run.session._id;
  // A message queued behind a running turn (D27 § 1): nothing of the chat is streamed until its turn starts.
  const waiting = run.queued !== undefined;
  const following: Following = {
    run,
    root,
    live: new LiveText(root, waiting ? Number.MAX_SAFE_INTEGER : run.fromSeq, stamped),
    waiting,
    children: new Map(),
    open: new Map(run.openChildren.map((c) => [c.sessionId, c.fromSeq])),
    dispatchOf: new Map(),
    turn: null,
    emit: stamped,
  };
  const unsubscribe = deps.textDeltas
    ? await deps.textDeltas.subscribe(root, (delta) => following.live.delta(delta)).catch(() => undefined)
    : undefined;
  const wake = new Wakeup();
  let stopFollowing: (() => void) | undefined;
  try {
    // Followed before the first read: a change after it wakes the stream for one more read.
    stopFollowing = await deps.watch?.follow({ rootId: root, turnId: run.turnId }, wake.notify);
    for (;;) {
      const read = await readOnce(deps, following);
      if (read === 'dropped') return stamped(droppedEvent(await sessionsOf(deps).findOne({ _id: root })));
      if (read === 'settled') break;
      if (signal?.aborted) return;
      if (stopFollowing) await wake.wait(undefined, signal);
      else await deps.sleep(deps.pollMs ?? 100);
      if (signal?.aborted) return;
    }
  } finally {
    unsubscribe?.();
    stopFollowing?.();
  }
  await closingEvents(deps, following);
}

/**
 * Makes an opening run's writes (after RUN_STARTED: docs/decisions.md D24 § 3). @returns the started run, or
 * undefined once a failed write ended the stream with RUN_ERROR carrying the code and message its HTTP status would
 * have had (an unexpected failure as `internal`, logged)
 */
async function openedRun(deps: AguiStreamDeps, run: OpeningRun, emit: Emit): Promise<StartedRun | undefined> {
  try {
    await deps.flush?.();
    return await run.open();
  } catch (error) {
    const known = isPlatformError(error);
    if (!known || (error.status ?? 500) >= 500) {
      const fields = known
        ? { code: error.code, err: error.message }
        : { err: (error as Error).stack ?? String(error) };
      deps.logger?.error(fields, known ? 'request failed' : 'request failed unexpectedly');
    }
    const { code, message } = known ? error : unexpectedFailure;
    emit({ type: EventType.RUN_ERROR, code, message });
    return undefined;
  }
}

/** RUN_STARTED, the thread's secret and the ignored-tools notice. */
function openingEvents(run: AguiRun, emit: Emit): void {
  const { threadId, runId } = run;
  emit({ type: EventType.RUN_STARTED, threadId, runId });
  // A custom event, not a field of RUN_STARTED: clients (and the binary encoding) keep only the protocol's own fields.
  if (run.threadSecret) {
    emit({
      type: EventType.CUSTOM,
      name: 'platform.thread_secret',
      value: { threadId, threadSecret: run.threadSecret },
    });
  }
  if (run.ignored) {
    emit({
      type: EventType.CUSTOM,
      name: 'platform.notice',
      value: { code: 'client_tools_ignored', message: run.ignored },
    });
  }
}

/**
 * One read of the records: the turn, the thread's new messages of this run's turn, the children.
 * @returns `settled` once the run's turn and its session's write have ended, `dropped` for a queued message its
 *   chat ended before, else `more`
 */
async function readOnce(deps: AguiStreamDeps, f: Following): Promise<'settled' | 'dropped' | 'more'> {
  const { run, root, live } = f;
  f.turn = await turnsOf(deps).findOne({ _id: run.turnId });
  if (f.waiting) {
    const started = await queuedTurnStart(deps, root, f.turn);
    if (started === 'dropped') return 'dropped';
    if (started !== undefined) {
      live.nextSeq = started;
      f.waiting = false;
    }
  }
  // A settled turn's session is written right after it: the run ends once that write landed, so a message sent on
  // RUN_FINISHED finds the chat waiting for input (not `running`, which `reject` would refuse; D27 § 1).
  const turn = f.turn;
  const settled = !f.waiting && (!turn || (turn.status !== 'queued' && turn.status !== 'running')) &&
    !(await sessionWriteDue(deps, root, turn));
  const records = await messagesOf(deps).find({ sessionId: root, seq: { $gte: live.nextSeq } }, { sort: { seq: 1 } });
  for (const record of records) {
    // Only this run's turn: a message queued behind it may start its own turn before this one's last read.
    if (record.turnId === run.turnId) live.record(record);
    else live.nextSeq = record.seq + 1;
  }
  const { children, open, dispatchOf, emit } = f;
  await followChildren(deps, root, { since: run.since, children, open, dispatchOf, emit });
  return settled ? 'settled' : 'more';
}

/** The run's last events: open messages closed, a stopped turn's notice, RUN_FINISHED or RUN_ERROR. */
async function closingEvents(deps: AguiStreamDeps, { run, root, live, turn, emit }: Following): Promise<void> {
  live.closeOpen();
  // The thread is recorded before the run ends, so the next run on it continues the chat (agui-runs.ts `recorded`).
  await run.recorded;
  const session = await sessionsOf(deps).findOne({ _id: root });
  if (turn?.interrupted) {
    const message = 'A new message stopped this turn before its next model call' +
      (turn.interrupted === 'rollback' ? '; what it did was discarded.' : '; what it did is kept.');
    const value = { code: 'turn_interrupted', mode: turn.interrupted, message };
    emit({ type: EventType.CUSTOM, name: 'platform.notice', value });
  }
  emit(finishEvent(run, session && settledSession(session, turn), turn?.interrupted));
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
