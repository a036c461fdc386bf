/**
 * AG-UI runs on one chat thread for the double-texting tests (docs/decisions.md D27 § 1), each with a fresh
 * @ag-ui/client HttpAgent, as a second browser tab or device would send: a public caller's thread id with the thread
 * secret sent back in `forwardedProps.threadSecret`. A run is started without waiting for its end, so a test can
 * send another message on the same thread while it runs.
 */
import { HttpAgent, type BaseEvent } from '@ag-ui/client';

/** An AG-UI event with its fields. */
export type AguiEvent = BaseEvent & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The thread a public caller holds: the endpoint, the thread id and the secret issued with it (empty: a new chat). */
export interface AguiThread { url: string; threadId: string; secret: string }

/** A refused run: the HTTP status and the error body. */
export interface RefusedRun { status: number; payload: { error: { code: string; message: string } } }

/** One run under way: its events so far, its end, and the value of its `platform.queued` event. */
export interface LiveRun {
  events: AguiEvent[];
  /** Resolves at the run's end with every event, and the HTTP error of a refused run. */
  done: Promise<{ events: AguiEvent[]; error?: RefusedRun }>;
  /** Resolves with `platform.queued`'s value, or undefined when the run ended without one. */
  queued: Promise<Record<string, unknown> | undefined>;
}

/**
 * Starts a run sending `text` on `thread` with a fresh HttpAgent. A refused run (HTTP 4xx/5xx) ends with `error`;
 * a failure before any answer (the endpoint unreachable) rejects `done`.
 */
export function sendOnThread(thread: AguiThread, text: string): LiveRun {
  const agent = new HttpAgent({ url: thread.url, threadId: thread.threadId || `fresh-${crypto.randomUUID()}` });
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  const events: AguiEvent[] = [];
  let onQueued: (value: Record<string, unknown> | undefined) => void = () => undefined;
  const queued = new Promise<Record<string, unknown> | undefined>((resolve) => { onQueued = resolve; });
  const forwardedProps = thread.secret ? { threadSecret: thread.secret } : {};
  const done = agent.runAgent({ forwardedProps }, {
    onEvent: ({ event }) => {
      const e = event as AguiEvent;
      events.push(e);
      if (e.type === 'CUSTOM' && e.name === 'platform.queued') onQueued(e.value as Record<string, unknown>);
    },
  }).then(() => ({ events }), (error: Partial<RefusedRun>) => {
    if (error.status === undefined && events.length === 0) throw error;
    return { events, ...(error.status ? { error: error as RefusedRun } : {}) };
  }).finally(() => onQueued(undefined));
  return { events, done, queued };
}

/** The values of the run's custom events named `name`. */
export const customsOf = (events: AguiEvent[], name: string) =>
  events.filter((e) => e.type === 'CUSTOM' && e.name === name).map((e) => e.value as Record<string, unknown>);

/** The run's text, all TEXT_MESSAGE_CONTENT deltas joined. */
export const textOf = (events: AguiEvent[]) =>
  events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta as string).join('');

/** The run's event types without its text events and the thread secret a public caller's run gets after RUN_STARTED. */
export const kindsOf = (events: AguiEvent[]) => events.filter((e) => e.name !== 'platform.thread_secret')
  .map((e) => (e.type === 'CUSTOM' ? `CUSTOM ${e.name}` : e.type)).filter((t) => !t.startsWith('TEXT_MESSAGE_'));

/** The thread id and secret a new chat's run issued (`platform.thread_secret`) and its session (RUN_FINISHED). */
export function issuedThread(url: string, events: AguiEvent[]): AguiThread & { sessionId: string } {
  const [issued] = customsOf(events, 'platform.thread_secret');
  const finished = events.find((e) => e.type === 'RUN_FINISHED');
  if (!issued || !finished) throw new Error(`the run opened no chat: ${JSON.stringify(events)}`);
  const sessionId = (finished.result as { sessionId: string }).sessionId;
  return { url, threadId: String(issued.threadId), secret: String(issued.threadSecret), sessionId };
}
