/**
 * Who calls the session use cases and what those need, and who sees a session: a member's chat (`startedBy`,
 * inherited by its children through the root) is personal, another member's is not found unless they hold
 * sessions:personal; a session the caller may not see reads as one that does not exist (404, no identifier).
 *
 * Source: spec/platform-service.md § Session facts named (a chat is personal); docs/decisions.md D7 § Sessions and
 * turns.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import type { SessionRecord } from './model.ts';
import { sessionsOf, type SessionStoreDeps } from './session-store.ts';
import type { WorkflowView } from './workflow-view.ts';

/** The member acting. */
export interface SessionCaller {
  subject: string;
  email: string;
  name?: string;
}

/** A published workflow resolved for a caller (core/boot over core/agent). */
export interface ResolvedWorkflow {
  orgId: string;
  agentId: string;
  environment: string;
  buildId: string;
  commitId: string;
  view: WorkflowView;
}

/** What the session use cases need besides the stores. */
export interface SessionDeps extends SessionStoreDeps {
  /**
   * Requires at least `role` on the agent. @throws PlatformError `agent_role_required` (403), `not_found` (404) when
   * the caller does not see the agent (not a member of its organization, or no role on it)
   */
  requireRole(
    caller: SessionCaller,
    orgId: string,
    agentId: string,
    role: 'reader' | 'user' | 'maintainer',
  ): Promise<void>;
  /** True when the caller holds sessions:personal in `orgId`: they see every member's chats there. */
  seesEveryChat(caller: SessionCaller, orgId: string): Promise<boolean>;
  /** The published workflow of an agent's environment. @throws PlatformError `agent_not_found`, `not_published`,
   * `workflow_not_found` */
  resolveWorkflow(
    caller: SessionCaller,
    ref: { orgId?: string; agent: string; environment: string; workflow: string },
  ): Promise<ResolvedWorkflow>;
  /** Resolves an agent (slug or id) without a workflow. */
  resolveAgent(
    caller: SessionCaller,
    ref: { orgId?: string; agent: string },
  ): Promise<{ orgId: string; agentId: string }>;
  /** Puts a queued turn on the turn queue. */
  enqueueTurn(turnId: string): Promise<void>;
  /**
   * Whether model `id` (undefined: the default) has prices in the config; given, a cap is refused on a published
   * workflow whose calls run on a model without (docs/decisions.md D17 § 5). Optional.
   */
  modelHasPrices?(id: string | undefined): boolean;
  /** Told after a cancel (the chat's readers and its running turn read again); optional. */
  changes?: SessionChanges;
}

/** What queuing a turn on an existing session needs. */
export type TurnQueueDeps = SessionStoreDeps & Pick<SessionDeps, 'enqueueTurn'>;

/** The 404 of a session the caller may not see (or that does not exist: the two read the same; no identifier). */
const sessionNotFound = () =>
  new PlatformError(
    'not_found',
    'No such session among the sessions you can see; GET /api/sessions lists them.',
    { status: 404 },
  );

/**
 * The member a session belongs to: its own `startedBy`, or its root's for a child session (children of a member's
 * chat are as personal as the chat); undefined for a session that belongs to no member.
 */
export async function ownerOf(
  deps: Pick<SessionStoreDeps, 'docs'>,
  session: SessionRecord,
): Promise<string | undefined> {
  if (session.startedBy !== undefined || !session.rootId) return session.startedBy;
  return (await sessionsOf(deps).findOne({ _id: session.rootId }))?.startedBy;
}

/**
 * Whether `caller` (who reads the session's agent) sees `session`: a session of no member, their own chat, or any
 * chat where they hold sessions:personal. Source: spec § Session facts named (a chat is personal).
 */
export async function seesSession(
  deps: Pick<SessionDeps, 'docs' | 'seesEveryChat'>,
  caller: SessionCaller,
  session: SessionRecord,
): Promise<boolean> {
  const owner = await ownerOf(deps, session);
  return owner === undefined || owner === caller.subject || deps.seesEveryChat(caller, session.orgId);
}

/**
 * A session the caller sees, with at least `role` on its agent: visibility first (Reader role, then the chat's
 * owner), so a session the caller may not see is 404 whatever the role asked; then `role` (403 when lower).
 * @throws PlatformError `not_found` (404, no identifier), `agent_role_required` (403)
 */
export async function loadSession(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
  role: 'reader' | 'user' | 'maintainer',
): Promise<SessionRecord> {
  const session = await sessionsOf(deps).findOne({ _id: sessionId });
  if (!session) throw sessionNotFound();
  try {
    await deps.requireRole(caller, session.orgId, session.agentId, 'reader');
  } catch (error) {
    if (isPlatformError(error, 'not_found')) throw sessionNotFound();
    throw error;
  }
  if (!(await seesSession(deps, caller, session))) throw sessionNotFound();
  if (role !== 'reader') await deps.requireRole(caller, session.orgId, session.agentId, role);
  return session;
}
