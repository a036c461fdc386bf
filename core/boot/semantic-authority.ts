/**
 * The organization checks of the semantic routes (core/semantic's SemanticAuthority), wired from core/org:
 * `agents:create` to create a project, and roles on a project as on an agent (the organization's group grants
 * keyed by the project's id or `*`).
 *
 * Source: docs/decisions.md D17 § 1; spec/platform-service.md § Authentication rule 8.
 */
import { PlatformError } from '../ports/platform-error.ts';
import {
  agentRoleNames,
  listOrganizations,
  orgAccess,
  type OrgDeps,
  requirePermission,
  roleAtLeast,
} from '../org/index.ts';
import type { SemanticAuthority } from '../semantic/project-access.ts';

/** A SemanticAuthority over the organization records in `deps.docs`. */
export function orgSemanticAuthority(deps: Pick<OrgDeps, 'docs'>): SemanticAuthority {
  return {
    orgIdsOf: async (caller) => (await listOrganizations(deps, caller)).map((org) => org._id),
    requireCreate: async (caller, orgId) => {
      await requirePermission(deps, caller, orgId, 'agents:create');
    },
    requireRole: async (caller, project, role) => {
      const held = (await orgAccess(deps, caller, project.orgId)).agentRole(project._id);
      if (roleAtLeast(held, role)) return;
      const has = held === undefined ? 'no role' : `the ${agentRoleNames[held]} role`;
      const message = `You need the ${agentRoleNames[role]} role on semantic project "${project.slug}" for this ` +
        `(you have ${has}); ask an Organization Owner to add you to a group that gives it.`;
      throw new PlatformError('project_role_required', message, { status: 403 });
    },
    rolesIn: async (caller, orgId) => (await orgAccess(deps, caller, orgId)).agentRole,
  };
}
