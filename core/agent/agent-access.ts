/**
 * The one agent resolver of every surface: an agent reference (`:agent` of a route, `--agent` of the CLI, `agent` of
 * a body or query) is the agent's id or its slug, looked up only among the organizations the caller is a member of,
 * then the caller's role on it is checked through the authority (core/boot/agent-authority.ts, the one
 * authorization helper). Anything the caller may not see reads as "no such agent": 404 `agent_not_found`, with no
 * identifier in the message (neither the reference typed nor any organization's).
 *
 * Source: spec/platform-service.md § Authentication rule 8 (agent roles), § Errors (404); docs/decisions.md
 * D7
 * § Organizations and roles; docs/decisions.md D17 § 2 (one resolver, one authorization helper, no identifier in a
 * 404).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  type AgentRecord,
  type AgentRoleName,
} from './hosting-model.ts';

/** Where to look: one organization of the caller's (`orgId`), or all of them (default). */
export interface AgentLookup {
  /** Restricts the lookup to this organization (it must be one of the caller's: otherwise nothing is found). */
  orgId?: string;
}

/** The 404 of an agent the caller may not see (or that does not exist: the two read the same). */
export function agentNotFound(): PlatformError {
  const message = "No such agent among your organizations' agents; GET /api/orgs/<org>/agents lists them.";
  return new PlatformError('agent_not_found', message, { status: 404 });
}

/**
 * The agent `ref` names (its id, or its slug) among the organizations `caller` is a member of (or `lookup.orgId`).
 * No role is checked here: see {@link loadAgent}.
 * @throws PlatformError `agent_not_found` (404, no identifier in the message) when no agent of the caller's
 *   organizations has that id or slug; `ambiguous_agent` (409) when the slug names agents in several of the
 *   caller's organizations (the message names those organizations, all the caller's own: use the agent's id or name
 *   the organization)
 */
export async function resolveAgent(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  ref: string,
  lookup: AgentLookup = {},
): Promise<AgentRecord> {
  const mine = await deps.authority.memberOrgIds(caller);
  const orgIds = lookup.orgId === undefined ? mine : mine.filter((id) => id === lookup.orgId);
  if (orgIds.length === 0 || ref.length === 0) throw agentNotFound();
  const agents = deps.docs.collection<AgentRecord>(agentCollections.agents);
  const byId = await agents.findOne({ _id: ref, orgId: { $in: orgIds } });
  if (byId) return byId;
  const bySlug = await agents.find({ slug: ref, orgId: { $in: orgIds } }, { sort: { orgId: 1 } });
  if (bySlug.length === 1) return bySlug[0];
  if (bySlug.length > 1) {
    const where = bySlug.map((a) => a.orgId).join(', ');
    const message = `That slug names an agent in ${bySlug.length} of your organizations (${where}); ` +
      "use the agent's id, or name the organization (orgId, --org).";
    throw new PlatformError('ambiguous_agent', message, { status: 409 });
  }
  throw agentNotFound();
}

/** The role {@link loadAgent} requires on the agent, and where it looks. */
export interface AgentAccess extends AgentLookup {
  /** The least role the caller must hold on the agent (reader < user < maintainer < administrator). */
  role: AgentRoleName;
}

/**
 * The agent `ref` names (id or slug, as {@link resolveAgent}) after checking the caller holds at least `role` on it.
 * A member holding no role at all on the agent does not see it (404, as a non-member).
 * @throws PlatformError `agent_not_found` (404) as {@link resolveAgent}, or when the caller holds no role on the agent;
 *   `ambiguous_agent` (409); `agent_role_required` (403) naming the role needed when the caller holds a lower one
 */
export async function loadAgent(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  ref: string,
  { role, ...lookup }: AgentAccess,
): Promise<AgentRecord> {
  const agent = await resolveAgent(deps, caller, ref, lookup);
  try {
    await deps.authority.requireRole(caller, agent.orgId, agent._id, role);
  } catch (error) {
    if (isPlatformError(error, 'not_found')) throw agentNotFound();
    throw error;
  }
  return agent;
}
