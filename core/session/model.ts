/**
 * Sessions and turns: stored records, statuses, and the view of a published workflow the turn engine runs.
 *
 * A session is one workflow's durable conversation: one checkpoint thread (its ordered messages), a folder of
 * its own in the object store (`sessions/<sessionId>/`), a trail of the states visited, usage and cost. A turn
 * is one invocation on it (a prompt, a decision, a reply or a delivery). A child session is created by a
 * workflow call and carries a dispatch id.
 *
 * Source: spec/platform-service.md § Session facts named, § Tool-call result status; docs/agent-format.md;
 * docs/decisions.md D7 § Sessions and turns.
 */
import type { QueuedMessage, SessionRestore, TurnInterrupt } from './chat-queue-model.ts';
import type { TestCase } from '../agent/documents-model.ts';
import type { TraceCarrier } from '../telemetry/trace-context.ts';
import type { TurnStep } from '../telemetry/turn-steps.ts';
import type { DecisionChannel, DecisionInput } from './decision-input.ts';
import type { UsageTotals } from './usage-model.ts';

/** Version of the document shape of every session collection. Source: spec § Versioning. */
export const sessionSchemaVersion = 1 as const;

/** Collection names, one place. */
export const sessionCollections = {
  sessions: 'sessions',
  turns: 'session_turns',
  messages: 'session_messages',
  spendCaps: 'spend_caps',
  spendTotals: 'spend_totals',
  /** Claimed delivery ids of firings (core/session/firings.ts). */
  deliveries: 'trigger_deliveries',
} as const;

/** Object keys of a session's own folder. */
export const sessionKeys = {
  /** The folder (prefix) of a session in the object store. */
  folder: (sessionId: string) => `sessions/${sessionId}/`,
  /** The manifest written when the session opens. */
  manifest: (sessionId: string) => `sessions/${sessionId}/session.json`,
};

/**
 * Statuses of a session (and of a settled turn). Source: spec/platform-service.md § Tool-call result status.
 */
export const sessionStatuses = [
  'running',
  'succeeded',
  'awaiting_decision',
  'awaiting_input',
  'failed',
  'cancelled',
] as const;
/** A session status. */
export type SessionStatus = typeof sessionStatuses[number];
/** A turn is `queued` until a dispatcher claims it, then takes the session's statuses. */
export type TurnStatus = SessionStatus | 'queued';
/** Statuses after which a session takes no turn any more. */
export const finalStatuses: readonly SessionStatus[] = ['succeeded', 'failed', 'cancelled'];

/** How often a dispatcher renews the heartbeat of a turn it runs (ms). */
export const TURN_HEARTBEAT_MS = 10_000;
/** A running turn whose heartbeat is older than this lost its dispatcher (ms). */
export const TURN_STALE_MS = 60_000;

/** What started a turn. Source: spec § Session facts named (prompt, decision, reply or delivery). */
export type TurnKind = 'prompt' | 'decision' | 'reply' | 'delivery';

/** A value of a variable or attribute: text, integer, decimal or boolean (its kind is its own). */
export type SessionValue = string | number | boolean;

/**
 * A field a decision carries (a human state's `fields`, defaults applied): its value becomes the session variable
 * `name`. `type` is one of string, number, integer, boolean, object, array. Source: docs/decisions.md D26 § 2.
 */
export interface DecisionFieldSpec {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
  description?: string;
  required: boolean;
}

/** One entry of the trail: a state entered, when and how. */
export interface TrailEntry {
  state: string;
  /**
   * `start` (entry state), `advance` (platform_advance), `decision` (decide), `expired` (the decision expired and
   * the park sweep moved the session to the state's `expires.to`, by `platform`), `error` (on_error route).
   */
  via: 'start' | 'advance' | 'decision' | 'expired' | 'error';
  at: Date;
  /** The model's reason, the decision's comment, or the error routed. */
  note?: string;
  /** Who decided (subject), for `decision`; `platform` for `expired`. */
  by?: string;
  /** The channel the decision came through, for `decision` (docs/decisions.md D26 § 2). */
  channel?: DecisionChannel;
}

/** What a parked session waits for. */
export type PendingWork =
  | {
    kind: 'decision';
    id: string;
    state: string;
    options: { to: string; description: string }[];
    childSessionId?: string;
    dispatchId?: string;
    /** ISO time after which the decision is refused and the park sweep moves the session on (D26 § 2). */
    expiresAt?: string;
    /** Where the session goes when the decision expires (the state's `expires.to`). */
    expiresTo?: string;
    /** The fields the decision carries (the state's `fields`), when it declares them. */
    fields?: DecisionFieldSpec[];
  }
  | {
    kind: 'input';
    id: string;
    reason: string;
    /** ISO time at which the park sweep resumes it. */ until?: string;
    /** True when the model parked with platform_wait (a wait); absent when it replied and waits for the next message.
     */
    wait?: boolean;
  };

/** A failure recorded on a turn and on its session. */
export interface TurnError {
  code: string;
  message: string;
}

/**
 * Version of the `sessions` collection's documents: 2 since chats record the member who started them (`startedBy`;
 * the data update core/boot/chat-owner-update.ts writes it for older chats). Source: spec § Versioning.
 */
export const sessionRecordSchemaVersion = 2 as const;

/**
 * The workflow slug of the design agent's chats (core/design): no build has it (`@` starts no slug), so no spend cap,
 * trigger or workflow call names it. Source: issue "The design agent" § Runtime.
 */
export const designWorkflowSlug = '@design';

/** A session record (collection `sessions`). */
export interface SessionRecord {
  _id: string;
  schemaVersion: typeof sessionRecordSchemaVersion;
  orgId: string;
  agentId: string;
  environment: string;
  workflow: string;
  /** The published build the session runs on, to its end. */
  buildId: string;
  commitId: string;
  status: SessionStatus;
  /** The active state. */
  state: string;
  trail: TrailEntry[];
  variables: Record<string, SessionValue | Record<string, unknown> | unknown[]>;
  /** Variables set by the firing: the model cannot change them. */
  lockedVariables: string[];
  attributes: Record<string, SessionValue>;
  /** A pending decision or input (JSON as the engine wrote it; `until` is ISO text). */
  pending: (PendingWork & Record<string, unknown>) | null;
  /** Model calls and parks of the current visit of `state`; `entered` once its before hooks ran. */
  visit: { modelCalls: number; parks: number; entered: boolean };
  /** Forbid rules inherited from parent sessions (deny binds child sessions). */
  inheritedForbid: { tool: string; arguments?: Record<string, unknown> }[];
  /** Workflows of the parent sessions, root first (a workflow call to one of them is a cycle). */
  ancestry: string[];
  usage: UsageTotals;
  /** Messages in the checkpoint thread so far (the next message's sequence number). */
  messageCount: number;
  /** Workflow calls dispatched by this session so far (numbers its children's dispatch ids). */
  dispatchCount: number;
  /** Root sessions: undefined. Children: the parent, the root, the dispatch id (`2`, `1~1`) and the depth (1 = child of
   * a root). */
  parentId?: string;
  rootId?: string;
  dispatchId?: string;
  depth: number;
  /** The trigger id that opened it (`manual` for an operator start). */
  trigger: string;
  /** The member who started it (a chat); absent for sessions that belong to no member. */
  startedBy?: string;
  /**
   * The evaluation run and case it runs (an evaluation session, belonging to no member; core/evaluation); absent for
   * every other session. Source: issue "Evaluations" § Runs.
   */
  evaluation?: {
    runId: string;
    caseId: string;
    /** The case's mocks: its service calls are answered from them alone (./evaluation-mocks.ts). */
    mocks?: NonNullable<TestCase['mocks']>;
  };
  /**
   * The session key its trigger's `session` expression gave the opening firing (root sessions of keyed triggers
   * only): later firings with the same key are delivered to it while it is open. Source: docs/agent-format.md §
   * Triggers.
   */
  sessionKey?: string;
  /**
   * The outbox of the write that moved the session to `running` (start, decide, reply, delivery, park sweep): the
   * turn that must follow, written in that same write so a crash before the turn is inserted loses nothing (the
   * turn sweep, core/session/turn-recovery.ts, inserts and queues it). Cleared when the turn is claimed.
   * Source: docs/architecture.md § Life of a turn.
   */
  next?: NextTurn | null;
  /**
   * The lease epoch of the turn running on it (the claim's `lease`, inherited by child sessions): checkpoints write
   * only when it matches, so a runner whose turn was failed as stale writes nothing. Source: docs/architecture.md.
   */
  lease?: string | null;
  /**
   * The span of its last settled turn (written with the settle): its next turn's span links to it, whatever trace
   * that turn continues. Source: docs/decisions.md D25.
   */
  lastTurnSpan?: TraceCarrier;
  /** Chat messages waiting for the running turn to end, oldest first (./chat-queue.ts; D27 § 1). */
  queued?: QueuedMessage[];
  /** How many are in `queued` (the turn sweep finds a chat left waiting with a queue by it). */
  queuedCount?: number;
  /** Raised by every write of `queued`: the compare-and-set of a send and of a settle that hands over. */
  queueVersion?: number;
  /** What a queued message asked of the running turn (cleared when it settles). */
  interrupt?: TurnInterrupt | null;
  error: TurnError | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A session's outbox: the turn its last move to `running` needs (see SessionRecord.next). */
export interface NextTurn {
  /** The id the turn is inserted under (so inserting it twice is one turn). */
  turnId: string;
  kind: TurnKind;
  input: TurnRecord['input'];
  /** When the move was written. */
  at: Date;
}

/** A turn record (collection `session_turns`). */
export interface TurnRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  sessionId: string;
  orgId: string;
  kind: TurnKind;
  /** The prompt or reply text, or the decision. */
  input: { message?: string; decision?: DecisionInput };
  status: TurnStatus;
  /** The dispatcher instance running it (while `running`). */
  runner?: string;
  /**
   * Last sign of life of its runner (renewed every {@link TURN_HEARTBEAT_MS} while it runs), on the queue store's
   * clock (core/adapters/redis/store-clock.ts).
   */
  heartbeatAt?: Date;
  /**
   * The lease epoch of the claim (a new id per claim; child turns take their root's): settles and checkpoints match
   * it, so a runner fenced out (its turn failed as stale) writes nothing.
   */
  lease?: string;
  usage: UsageTotals;
  error: TurnError | null;
  queuedAt: Date;
  startedAt?: Date;
  endedAt?: Date;
  /**
   * The W3C trace context of the request or firing that queued it (absent when no span was recording): the turn's
   * span continues that trace. Source: docs/decisions.md D25.
   */
  trace?: TraceCarrier;
  /** What the runner timed while the turn ran (at most MAX_TURN_STEPS), written when it settles. */
  steps?: TurnStep[];
  /** Steps left out past MAX_TURN_STEPS. */
  stepsDropped?: number;
  /** The turn's own span (`invoke_workflow`), written when it settles (absent when none was recording). */
  span?: TraceCarrier;
  /** How a new message stopped it before its end (D27 § 1); absent when it ran to its end. */
  interrupted?: TurnInterrupt['mode'];
  /** A rolled-back turn: the session as it was before it (applied with the session's settle). */
  restore?: SessionRestore;
}

/**
 * What the runner timed of a turn, written with the writes that settle it (core/session/session-store.ts
 * `settleTurn`): its steps on the turn, its span on the turn and as the session's `lastTurnSpan`. Source:
 * docs/decisions.md D25.
 */
export interface TurnTimeline {
  steps: TurnStep[];
  stepsDropped: number;
  span?: TraceCarrier;
}
