/**
 * The shapes of the Chat page's transcript (./transcript.ts builds it from AG-UI events, ./runs.ts keeps the runs
 * in flight): its entries in order, and where the chat stands.
 *
 * Source: docs/decisions.md D10 § Chat, D27 § 1; spec/platform-service.md § Stream and custom events.
 */

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

/**
 * What every entry may carry: the run it came from (the page's own key of a run, absent for entries read from
 * history) and, once a rollback discarded its turn, `discarded` (the page greys it: it is gone from the session).
 */
export interface RunTag { run?: string; discarded?: boolean }

/** One entry of the transcript, in order. */
export type TranscriptItem = RunTag & (
  /** A message of the member; `queued` its place while it waits behind a running turn (1 = next). */
  | { kind: 'user'; key: string; text: string; queued?: number }
  /** An assistant message: `messageId` the stream's id (unique within its run; `key` is unique in the transcript). */
  | { kind: 'assistant'; key: string; messageId?: string; text: string; streaming: boolean }
  /** A tool call: `args` its input as sent (JSON text), `result` what came back (at most {@link toolResultChars}). */
  | { kind: 'tool'; key: string; callId?: string; name: string; done: boolean; isError?: boolean; args: string; result?: string }
  | { kind: 'sub'; key: string; block: SubWorkflowBlock }
  | { kind: 'decision'; key: string; interruptId: string; message: string; options: DecisionOption[] }
  | { kind: 'wait'; key: string; interruptId: string; message: string; expiresAt?: string }
  /** A note of the platform; `stopped` when it says a new message stopped the run's turn. */
  | { kind: 'notice'; key: string; text: string; stopped?: boolean }
  | { kind: 'error'; key: string; code?: string; message: string });

/** A run in flight: `queued` its message's place behind the running turn (1 = next), absent once its turn runs. */
export interface RunState { queued?: number }

/** A transcript and where the chat stands. */
export interface Transcript {
  items: TranscriptItem[];
  /** The thread id the platform issued (RUN_STARTED); send it next. */
  threadId?: string;
  sessionId?: string;
  /** The session's status as the last run left it (`awaiting_input`, `awaiting_decision`, `succeeded`, …). */
  status?: string;
  /** True while a run is in flight that is not queued behind another (its turn runs, or its request is on the way). */
  running: boolean;
  /** The runs in flight, by the page's key of each (absent: none yet). */
  runs?: Record<string, RunState>;
}
