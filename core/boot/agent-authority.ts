/**
 * The one authorization helper of agents and everything under them (environments, operations, deployments,
 * connections, sessions, spend caps), wired from core/org: `agents:create` to create an agent, agent roles to read
 * and change one. Every route file reaches it: the agent routes through core/agent's use cases, the session,
 * connection and deployment routes through {@link agentScope} (core/agent's one resolver, then this check).
 *
 * Visibility: a caller who is not a member of the agent's organization, or who is a member holding no role at all
 * on the agent, does not see it: `not_found` (404) with no identifier in the message. A member holding a lower role
 * than needed gets 403 `agent_role_required` naming the role (the agent is visible to them).
 *
 * Source: spec/platform-service.md § Authentication rule 8, § Errors; docs/decisions.md D7 § Organizations
 * and roles;
 * docs/decisions.md D17 § 2 (one authorization helper; anything the caller may not see is 404 with no identifier).
 */
import { type AgentLookup, loadAgent } from '../agent/agent-access.ts';
import {
  type AgentAuthority,
  type AgentCaller,
  agentCollections,
  type AgentRecord,
  type AgentRoleName,
} from '../agent/hosting-model.ts';
import {
  agentRoleNames,
  listOrganizations,
  orgAccess,
  type OrgDeps,
  requirePermission,
  roleAtLeast,
} from '../org/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';

/** The 404 of an agent record the caller may not see (no identifier in it). */
const notVisible = () =>
  new PlatformError('not_found', "No such agent among your organizations' agents.", {
    status: 404,
  });

/** The role {@link requireAgentRoleOf} requires, and on which agent. */
export interface AgentRoleNeed {
  /** The organization the agent belongs to. */
  orgId: string;
  /** The agent's id. */
  agentId: string;
  /** The least role needed (reader < user < maintainer < administrator). */
  role: AgentRoleName;
}

/**
 * Requires at least `role` of `caller` on agent `agentId` of `orgId`.
 * @returns the caller's permissions in that organization (e.g. to see whether they hold sessions:personal)
 * @throws PlatformError `not_found` (404, no identifier) when the caller is not a member or holds no role on the
 *   agent; `agent_role_required` (403) naming the role needed and the one held
 */
export async function requireAgentRoleOf(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<AgentCaller, 'subject'>,
  { orgId, agentId, role }: AgentRoleNeed,
): Promise<{ permissions: string[] }> {
  const access = await orgAccess(deps, caller, orgId).catch((error: unknown) => {
    throw isPlatformError(error, 'not_found') ? notVisible() : error;
  });
  const held = access.agentRole(agentId);
  if (held === undefined) throw notVisible();
  if (!roleAtLeast(held, role)) {
    const message = `You need the ${agentRoleNames[role]} role on this agent for this ` +
      `(you have the ${agentRoleNames[held]} role); ask an Organization Owner to add you to a group that gives it.`;
    throw new PlatformError('agent_role_required', message, { status: 403 });
  }
  return { permissions: access.permissions };
}

/** The agent a caller names, with their role on it checked (see {@link agentScope}). */
export type AgentScope = (
  caller: Pick<AgentCaller, 'subject'>,
  ref: string,
  role: AgentRoleName,
  lookup?: AgentLookup,
) => Promise<AgentRecord>;

/** An AgentAuthority over the organization records in `deps.docs`. */
export function orgAgentAuthority(deps: Pick<OrgDeps, 'docs'>): AgentAuthority {
  return {
    requireCreate: async (caller, orgId) => {
      await requirePermission(deps, caller, orgId, 'agents:create');
    },
    requireRole: async (caller, orgId, agentId, role) => {
      await requireAgentRoleOf(deps, caller, { orgId, agentId, role });
    },
    rolesIn: async (caller, orgId) => (await orgAccess(deps, caller, orgId)).agentRole,
    memberOrgIds: async (caller) => (await listOrganizations(deps, caller)).map((o) => o._id),
  };
}

/**
 * The agent `ref` (id or slug, among the caller's organizations) with the caller's role on it checked: core/agent's
 * one resolver over {@link orgAgentAuthority}. For the wiring of other domains (sessions, connections, deployments).
 * @throws PlatformError as core/agent `loadAgent`: `agent_not_found` (404), `ambiguous_agent` (409),
 *   `agent_role_required` (403)
 */
export function agentScope(docs: DocumentStore): AgentScope {
  const deps = { docs, authority: orgAgentAuthority({ docs }) };
  // The checks read the subject only.
  return (caller, ref, role, lookup = {}) => loadAgent(deps, { email: '', ...caller }, ref, { role, ...lookup });
}

/** What a member's session lists read across their organizations. */
export interface ReadableSessions {
  /** The agents they hold a role on (Reader or more). */
  agentIds: string[];
  /** Organizations where they hold sessions:personal (every member's chats listed). */
  everyChatIn: string[];
}

/** The agents `caller` holds a role on in each of their organizations, and where they hold sessions:personal. */
export async function readableSessionScope(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<AgentCaller, 'subject'>,
): Promise<ReadableSessions> {
  const readable: ReadableSessions = { agentIds: [], everyChatIn: [] };
  for (const org of await listOrganizations(deps, caller)) {
    const access = await orgAccess(deps, caller, org._id);
    if (access.permissions.includes('sessions:personal')) readable.everyChatIn.push(org._id);
    const agents = await deps.docs.collection<AgentRecord>(agentCollections.agents).find({ orgId: org._id });
    readable.agentIds.push(...agents.filter((a) => access.agentRole(a._id) !== undefined).map((a) => a._id));
  }
  return readable;
}
