/**
 * Reading an agent after checking the caller's role on it through core/org.
 *
 * Source: ../shared/spec/platform-service.md § Authentication rule 8 (agent roles); issue 7 § Organizations and roles.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { agentCollections, type AgentCaller, type AgentDeps, type AgentRecord, type AgentRoleName } from './hosting-model.ts';

/**
 * The agent `agentId` after checking the caller holds at least `role` on it.
 * @throws PlatformError `agent_not_found` (404) when there is no such agent or the caller is not a member
 *   of its organization; `agent_role_required` (403) from core/org
 */
export async function loadAgent(deps: Pick<AgentDeps, 'docs' | 'authority'>, caller: AgentCaller, agentId: string, role: AgentRoleName): Promise<AgentRecord> {
  const agent = await deps.docs.collection<AgentRecord>(agentCollections.agents).findOne({ _id: agentId });
  const missing = () => new PlatformError('agent_not_found', `No agent "${agentId.slice(0, 100)}" among your organizations' agents; GET /api/orgs/<org>/agents lists them.`, { status: 404 });
  if (!agent) throw missing();
  try {
    await deps.authority.requireRole(caller, agent.orgId, agent._id, role);
  } catch (error) {
    if (isPlatformError(error, 'not_found')) throw missing();
    throw error;
  }
  return agent;
}
