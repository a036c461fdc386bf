/**
 * The records of double-texting (docs/decisions.md D27 § 1): a chat's messages sent while one of its turns runs,
 * kept in order on the session (`SessionRecord.queued`), the interrupt a message asked of the running turn, and what
 * a rollback puts back.
 *
 * Source: docs/agent-format.md § Triggers (chat `multitask`); docs/decisions.md D27 § 1.
 */

/** A message waiting for the chat's running turn to end; it runs as the next turn, under the id chosen here. */
export interface QueuedMessage {
  /** The id its turn is inserted under (the AG-UI run that sent it follows this turn). */
  turnId: string;
  message: string;
  /** When it was sent. */
  at: Date;
}

/** The interrupt a queued message asked of the running turn: it stops before its next model call. */
export interface TurnInterrupt {
  /** `interrupt` keeps what the turn did; `rollback` discards it (`SessionRestore`). */
  mode: 'interrupt' | 'rollback';
  at: Date;
}

/**
 * The session as it was before a turn that was rolled back: written on the turn with its settle and applied by the
 * session's settle (or by the turn sweep, when the process died between the two writes).
 */
export interface SessionRestore {
  state: string;
  variables: Record<string, unknown>;
  visit: { modelCalls: number; parks: number; entered: boolean };
  trail: unknown[];
  pending: Record<string, unknown> | null;
  /** The thread's message count then: the turn's messages (numbered from it) are discarded. */
  messageCount: number;
}
