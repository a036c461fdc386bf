/**
 * A turn's timeline: what the trusted process timed while it ran the turn (worker start, model calls, tool calls,
 * hooks, children, the broker's refusals), kept on the turn record when it settles, so the session page draws a
 * timeline without any collector. Source: docs/decisions.md D25 (observability).
 */

/** What a step of a turn was. */
export type TurnStepKind = 'worker_start' | 'model_call' | 'tool_call' | 'hook' | 'child' | 'refusal';

/** One timed step of a turn (field `steps` of a turn record). */
export interface TurnStep {
  kind: TurnStepKind;
  /** The model, the tool, the hook's event, the child's workflow, or the refused rule. */
  name: string;
  /** When it began, in ms after the turn started. */
  atMs: number;
  /** How long it took, in ms (0 for a refusal). */
  durationMs: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  /** An error code when the step failed (never a message: messages may hold caller text). */
  error?: string;
}

/** At most this many steps are kept per turn; later ones are counted in `stepsDropped`. */
export const MAX_TURN_STEPS = 200;
