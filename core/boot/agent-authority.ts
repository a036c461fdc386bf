/**
 * The organization checks of the hosted-agent use cases (core/agent's AgentAuthority), wired from
 * core/org: `agents:create` to create an agent, agent roles to read and change one.
 *
 * Source: ../shared/spec/platform-service.md § Authentication rule 8; issue 7 § Organizations and roles.
 */
import type { AgentAuthority } from '../agent/hosting-model.ts';
import { orgAccess, requireAgentRole, requirePermission, type OrgDeps } from '../org/index.ts';

/** An AgentAuthority over the organization records in `deps.docs`. */
export function orgAgentAuthority(deps: Pick<OrgDeps, 'docs'>): AgentAuthority {
  return {
    requireCreate: async (caller, orgId) => { await requirePermission(deps, caller, orgId, 'agents:create'); },
    requireRole: async (caller, orgId, agentId, role) => { await requireAgentRole(deps, caller, orgId, agentId, role); },
    rolesIn: async (caller, orgId) => (await orgAccess(deps, caller, orgId)).agentRole,
  };
}
