/**
 * What an AG-UI run is made of: the fields of a RunAgentInput the platform reads, the started run a stream follows,
 * the message a run carries (only the last user message: history is not replayed) and the note on client tools
 * and context, which are not honoured.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 3, 5); docs/decisions.md D8 § Endpoints (AG-UI), D27.
 */
import type { SessionRecord } from '../session/model.ts';

/** The fields of a RunAgentInput the platform reads (validated by the route). */
export interface AguiRunInput {
  threadId: string;
  runId: string;
  messages: { id?: string; role: string; content?: unknown }[];
  tools: unknown[];
  context: unknown[];
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[];
  /** Props the client forwards; the platform reads `threadSecret` (a string) from it ({@link threadSecretOf}). */
  forwardedProps?: unknown;
}

/**
 * What a run's opening events carry (RUN_STARTED, the thread's secret, the ignored-tools notice): all known before
 * the run writes anything, the thread id being the platform's choice.
 */
export interface RunOpening {
  threadId: string;
  /**
   * The thread's secret, for a caller without a subject of their own (streamed after RUN_STARTED;
   * {@link threadOwner}).
   */
  threadSecret?: string;
  runId: string;
  /** A note for the stream when the caller sent tools or context (they are not honoured). */
  ignored?: string;
  /** When the run began (before its turn was queued): child sessions opened since are this run's. */
  since: Date;
}

/** A started run: the thread to send next, the session, the turn to follow, and where its messages begin. */
export interface StartedRun extends RunOpening {
  session: SessionRecord;
  turnId: string;
  /** Sequence number of the first message of the root thread this run produced (earlier ones are not replayed). */
  fromSeq: number;
  /**
   * Set when the run's message waits behind a running turn (the chat's `multitask`, D27 § 1): its place (1 = next),
   * and `fromSeq` is found once its turn starts.
   */
  queued?: number;
  /** Child sessions that had not ended when the run started, with their message counts then. */
  openChildren: { sessionId: string; fromSeq: number }[];
  /**
   * The write of a fresh chat's thread record, still in flight when the run is returned: RUN_STARTED (whose thread
   * id is issued before) need not wait for it; the stream waits for it before the run's last event, so the thread
   * can be continued once the run ends. Rejects with the store's error.
   */
  recorded?: Promise<void>;
}

/**
 * A fresh chat whose every refusal was decided before its stream starts (reads only, and the endpoint's rate), whose
 * writes go after RUN_STARTED (docs/decisions.md D24 § 3): the stream sends the opening events, then calls `open`.
 */
export interface OpeningRun extends RunOpening {
  /**
   * Opens the chat's session, queues its turn and starts writing the thread record. @throws PlatformError with the
   * code and message the HTTP status would have had (the stream ends with RUN_ERROR carrying them)
   */
  open(): Promise<StartedRun>;
}

/** A run as the stream takes it: started (its writes made), or opening (its writes go after RUN_STARTED). */
export type AguiRun = StartedRun | OpeningRun;

/**
 * The run with its writes made: an opening run's `open` called (for a caller that needs its turn without a stream:
 * tests, a client of the domain). @throws what `open` throws
 */
export function runStarted(run: AguiRun): Promise<StartedRun> {
  return 'open' in run ? run.open() : Promise.resolve(run);
}

/** The code and message of the answer a request that failed unexpectedly gets (bins/api `errorToResponse`). */
export const unexpectedFailure = {
  code: 'internal',
  message: 'The request failed unexpectedly; try again, and tell the operator if it persists.',
} as const;

/** The text of the last user message of the input (history is not replayed: earlier ones are ignored). */
export function lastUserText(input: Pick<AguiRunInput, 'messages'>): string | undefined {
  const message = [...input.messages].reverse().find((m) => m.role === 'user');
  if (!message) return undefined;
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) {
    const text = message.content.filter((p): p is { type: 'text'; text: string } =>
      p?.type === 'text' && typeof p.text === 'string'
    ).map((p) => p.text).join('\n');
    return text.length > 0 ? text : undefined;
  }
  return undefined;
}

/** What the stream says when the caller sent tools or context (rule 5). */
export function ignoredNote(input: AguiRunInput): string | undefined {
  const parts = [
    input.tools.length > 0 ? `${input.tools.length} client tool(s)` : '',
    input.context.length > 0 ? `${input.context.length} context entr${input.context.length === 1 ? 'y' : 'ies'}` : '',
  ].filter(Boolean);
  return parts.length > 0
    ? `This endpoint does not honour client-supplied tools or context: ${
      parts.join(' and ')
    } were ignored. The workflow uses only its own tools.`
    : undefined;
}
