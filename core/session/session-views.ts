/**
 * The JSON shapes the session routes answer (bins/api/session-routes.ts) and the web app reads: a session, its
 * thread's messages, its turns, a page of sessions. Times are ISO 8601 strings (UTC); costs are USD.
 *
 * Source: spec/platform-service.md § Session facts named (sessions, turns, decisions, waits, child sessions,
 * usage and cost), § Tool-call result status; docs/decisions.md D10 § Sessions.
 */
import type { DecisionChannel } from './decision-input.ts';
import type { DecisionFieldSpec, SessionRecord, SessionStatus, TurnKind, TurnRecord, TurnStatus } from './model.ts';
import type { MessageRecord } from './thread-model.ts';
import type { UsageTotals } from './usage-model.ts';

/** Token counts, model calls and cost (USD) of a session or a turn. */
export type UsageView = UsageTotals;

/**
 * One entry of a session's trail: a state entered (`via` start, advance, decision, expired or error), when (ISO), and
 * why; for a decision, who (`by`; `platform` for an expiry) and through which channel (docs/decisions.md D26 § 2).
 */
export interface TrailEntryView {
  state: string;
  via: 'start' | 'advance' | 'decision' | 'expired' | 'error';
  at: string;
  note?: string;
  by?: string;
  channel?: DecisionChannel;
}

/** What a parked session waits for: a decision between options, or input (`until`: ISO time a wait resumes by itself).
 */
export type PendingView =
  | null
  | {
    kind: 'decision';
    id: string;
    state: string;
    options: { to: string; description: string }[];
    childSessionId?: string;
    dispatchId?: string;
    /** ISO time after which the decision is refused and the session moves to `expiresTo` (D26 § 2). */
    expiresAt?: string;
    expiresTo?: string;
    /** The typed fields the decision carries (D26 § 2). */
    fields?: DecisionFieldSpec[];
  }
  | { kind: 'input'; id: string; reason: string; until?: string; wait?: boolean };

/** A session (`GET /api/sessions/:id`'s `session`, a list's items). */
export interface SessionView {
  id: string;
  orgId: string;
  agentId: string;
  /** The agent's slug, where the route looked it up (`GET /api/sessions`, `GET /api/sessions/:id`). */
  agentSlug?: string;
  environment: string;
  workflow: string;
  buildId: string;
  commitId: string;
  status: SessionStatus;
  /** The active state. */
  state: string;
  trail: TrailEntryView[];
  variables: Record<string, unknown>;
  attributes: Record<string, string | number | boolean>;
  pending: PendingView;
  usage: UsageView;
  error: { code: string; message: string } | null;
  /** The trigger id that opened it (`manual` for an operator start). */
  trigger: string;
  /** 0 for a root session, 1 for a child of a root, … */
  depth: number;
  sessionKey?: string;
  /** Evaluation sessions only: the run and the case (`<workflow>/<stem>`) it runs. */
  evaluation?: { runId: string; caseId: string };
  /** Child sessions only: the parent, the root and the dispatch id (`2`, `1~1`). */
  parentId?: string;
  rootId?: string;
  dispatchId?: string;
  createdAt: string;
  updatedAt: string;
}

/** A tool call of an assistant message. */
export interface ToolCallView {
  id: string;
  name: string;
  input: unknown;
}
/** A tool result of a tool message (`isError`: the tool failed; `output` then says why). */
export interface ToolResultView {
  callId: string;
  name: string;
  output: unknown;
  isError?: boolean;
}

/**
 * One message of a session's checkpoint thread (`seq` from 0): `content` for system, user and assistant messages,
 * `toolCalls` of an assistant, `results` of a tool message.
 */
export interface MessageView {
  seq: number;
  state: string;
  turnId: string;
  at: string;
  message: { role: 'system' | 'user' | 'assistant'; content: string; toolCalls?: ToolCallView[] } | {
    role: 'tool';
    results: ToolResultView[];
  };
}

/** A turn of a session: what started it (`kind`) and how it went. */
export interface TurnView {
  id: string;
  kind: TurnKind;
  status: TurnStatus;
  usage: UsageView;
  error: { code: string; message: string } | null;
  queuedAt: string;
  startedAt?: string;
  endedAt?: string;
}

/** `GET /api/sessions/:id`: the session, its thread (oldest first), its turns (oldest first) and its child sessions. */
export interface SessionDetailView {
  session: SessionView;
  messages: MessageView[];
  turns: TurnView[];
  children: SessionView[];
}

/** `GET /api/sessions`: a page of root sessions, newest first; `hasMore` when an older page exists (ask with `offset` +
 * `limit`). */
export interface SessionListView {
  sessions: SessionView[];
  hasMore: boolean;
}

/** Answer of `POST /api/sessions/:id/decide` and `…/reply`: the turn queued. */
export interface TurnQueuedView {
  turnId: string;
}

const iso = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString());

/** The view of a pending decision or input: the engine's held results and call ids are not shown. */
function pendingView(pending: SessionRecord['pending']): PendingView {
  if (!pending) return null;
  const { heldResults: _held, callId: _call, callName: _name, ...shown } = pending as Record<string, unknown>;
  return shown as unknown as PendingView;
}

/** The JSON view of a session record. */
export function sessionView(s: SessionRecord): SessionView {
  return {
    id: s._id,
    orgId: s.orgId,
    agentId: s.agentId,
    environment: s.environment,
    workflow: s.workflow,
    buildId: s.buildId,
    commitId: s.commitId,
    status: s.status,
    state: s.state,
    trail: s.trail.map((t) => ({ ...t, at: iso(t.at) })),
    variables: s.variables,
    attributes: s.attributes,
    pending: pendingView(s.pending),
    usage: s.usage,
    error: s.error,
    trigger: s.trigger,
    depth: s.depth,
    ...(s.sessionKey ? { sessionKey: s.sessionKey } : {}),
    ...(s.evaluation ? { evaluation: s.evaluation } : {}),
    ...(s.parentId ? { parentId: s.parentId, rootId: s.rootId, dispatchId: s.dispatchId } : {}),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

/** The JSON view of a turn record (its input is not shown). */
export function turnView(t: TurnRecord): TurnView {
  return {
    id: t._id,
    kind: t.kind,
    status: t.status,
    usage: t.usage,
    error: t.error,
    queuedAt: iso(t.queuedAt),
    ...(t.startedAt ? { startedAt: iso(t.startedAt) } : {}),
    ...(t.endedAt ? { endedAt: iso(t.endedAt) } : {}),
  };
}

/** The JSON view of a stored message. */
export function messageView(m: MessageRecord): MessageView {
  return { seq: m.seq, state: m.state, turnId: m.turnId, at: iso(m.at), message: m.message as MessageView['message'] };
}
