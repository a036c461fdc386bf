/**
 * A decision as a decision turn carries it, and the channel it came through (written by the trusted side:
 * takeDecision, ./decisions.ts, or the park sweep on expiry).
 *
 * Source: docs/decisions.md D26 § 2; spec/platform-service.md § Session facts named.
 */

/**
 * The channel a decision came through: the API (web app, CLI), an AG-UI resume, an MCP call, a decision link, an
 * evaluation's step. Source: docs/decisions.md D26 § 2.
 */
export type DecisionChannel = 'api' | 'agui' | 'mcp' | 'link' | 'evaluation';

/** A decision as a decision turn carries it (written by the trusted side: takeDecision or the park sweep). */
export interface DecisionInput {
  to: string;
  comment?: string;
  /** Who decided: a member's or endpoint caller's subject, or `platform` for an expiry. */
  by: string;
  /** The channel it came through; absent on turns written before D26. */
  channel?: DecisionChannel;
  /** The declared fields' values (checked against the pending decision's `fields`); they become variables. */
  fields?: Record<string, unknown>;
  /** True when the park sweep took it because the decision expired (the trail entry is then `expired`). */
  expired?: boolean;
  /** The id of the pending decision it answered (an AG-UI interrupt's id): a repeated answer finds its turn. */
  pendingId?: string;
}
