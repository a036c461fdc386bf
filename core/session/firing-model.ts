/**
 * The shapes of a firing: where it opens its session, what it carries, and what firing it needs.
 *
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Firings.
 */
import type { SessionRecord, SessionValue } from './model.ts';
import type { SessionStoreDeps } from './session-store.ts';

/** Where a firing opens its session. */
export interface FiringTarget {
  orgId: string;
  agentId: string;
  environment: string;
  buildId: string;
  commitId: string;
  workflow: string;
  /** The state declaring the trigger, and the trigger's id and kind. */
  state: string;
  trigger: { id: string; type: string };
}

/** A firing: what the session's `trigger` variable holds, locked arguments, the first turn's message, its key. */
export interface Firing {
  /** The firing (kept whole in the `trigger` variable). */
  payload: Record<string, unknown>;
  /** The firing's arguments (an mcp call's, a workflow call's): locked variables by name. */
  args?: Record<string, SessionValue>;
  /** The message of the turn that opens the session. */
  message: string;
  /**
   * The session key (the trigger's `session` expression evaluated over the firing, see core/agent
   * session-key-expression.ts `sessionKeyOf`); undefined opens a new session. Source: docs/agent-format.md § Triggers.
   */
  sessionKey?: string;
  /**
   * The member whose chat this firing opens (a chat through the AG-UI endpoint with the member's own sign-in),
   * written as the session's `startedBy`; undefined for sessions that belong to no member. A keyed firing of a member
   * joins only that member's session of its key. Source: spec § Session facts named (a chat is personal).
   */
  startedBy?: string;
  /**
   * What identifies this firing among all others (e.g. `["webhook", agent, environment, connection, deliveryId]`
   * as JSON): given, the session and turn ids are derived from it, so running the same firing again (a stalled job
   * run twice, a resumed claim) opens nothing new and at most queues its turn again. Undefined: every run opens anew.
   */
  firingKey?: string;
  /** The evaluation run and case the firing's session is opened for (an evaluation's `deliver` step). */
  evaluation?: SessionRecord['evaluation'];
}

/**
 * What a firing did: `opened` a new session, `delivered` a turn to the open session of its key, or found it had
 * done either before (`existing`: same firing key; its turn is queued again if it still waits).
 */
export interface FiringResult {
  session: SessionRecord;
  turnId: string;
  outcome: 'opened' | 'delivered' | 'existing';
}

/** What firing a session needs: the stores and the turn queue. */
export type FiringDeps = SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> };
