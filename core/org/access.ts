/**
 * Authorisation: what a caller holds in an organization (their member record, groups, permissions and
 * agent roles), and the checks every surface makes before acting.
 *
 * Source: spec/platform-service.md § Authentication rule 8, § Errors (403); docs/decisions.md D7 §
 * Organizations
 * and roles (every route checks the caller's role; refusals are 403 with a code).
 */
import { PlatformError } from '../ports/platform-error.ts';
import {
  type AgentRole,
  type GroupMemberRecord,
  type GroupRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  type Permission,
} from './model.ts';
import { agentRoleNames, effectiveAgentRole, effectivePermissions, type OrgSnapshot, roleAtLeast } from './rules.ts';

/** What a caller holds in one organization. */
export interface OrgAccess {
  org: OrganizationRecord;
  member: MemberRecord;
  /** The groups the member is in. */
  groups: GroupRecord[];
  /** Union of the groups' permissions, in catalog order. */
  permissions: Permission[];
  /** The member's role on `agentId` (the highest their groups give), or undefined. */
  agentRole(agentId: string): AgentRole | undefined;
}

/**
 * The refusal of an organization that does not exist or the caller is not in (the two read the same, and name no
 * identifier: an id typed for another tenant's organization is not echoed back).
 */
function notFound(): PlatformError {
  const message = 'No such organization among yours; GET /api/orgs lists the organizations you are a member of.';
  return new PlatformError('not_found', message, { status: 404 });
}

/**
 * What `caller` holds in organization `orgId`.
 * @throws PlatformError `not_found` (404) when the organization does not exist or the caller is not a member
 */
export async function orgAccess(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<OrgCaller, 'subject'>,
  orgId: string,
): Promise<OrgAccess> {
  const org = await deps.docs.collection<OrganizationRecord>(orgCollections.organizations).findOne({ _id: orgId });
  const member = org
    ? await deps.docs.collection<MemberRecord>(orgCollections.members).findOne({ orgId, subject: caller.subject })
    : null;
  if (!org || !member) throw notFound();
  const memberships = await deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).find({
    orgId,
    memberId: member._id,
  });
  const groups = memberships.length === 0 ? [] : await deps.docs.collection<GroupRecord>(orgCollections.groups).find({
    orgId,
    _id: { $in: memberships.map((m) => m.groupId) },
  }, { sort: { name: 1 } });
  return {
    org,
    member,
    groups,
    permissions: effectivePermissions(groups),
    agentRole: (agentId) => effectiveAgentRole(groups, agentId),
  };
}

/**
 * Requires `permission` of `caller` in `orgId`.
 * @returns the caller's access
 * @throws PlatformError `not_found` (404) as {@link orgAccess}; `permission_required` (403) naming the
 *   permission when none of the caller's groups grants it
 */
export async function requirePermission(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<OrgCaller, 'subject'>,
  orgId: string,
  permission: Permission,
): Promise<OrgAccess> {
  const access = await orgAccess(deps, caller, orgId);
  if (!access.permissions.includes(permission)) {
    throw new PlatformError(
      'permission_required',
      `You need the ${permission} permission in organization "${access.org.name}" for this; ask an Organization ` +
        `Owner to add you to a group that grants it.`,
      { status: 403 },
    );
  }
  return access;
}

/** The role {@link requireAgentRole} requires, and on which agent. */
export interface AgentRoleCheck {
  /** The organization the agent belongs to. */
  orgId: string;
  /** The agent's id. */
  agentId: string;
  /** The least role needed (Reader < User < Maintainer < Administrator). */
  role: AgentRole;
}

/**
 * Requires at least `role` on agent `agentId` of `orgId` (Reader < User < Maintainer < Administrator).
 * @returns the caller's access
 * @throws PlatformError `not_found` (404) as {@link orgAccess}; `agent_role_required` (403) naming the role
 *   needed and the one held
 */
export async function requireAgentRole(
  deps: Pick<OrgDeps, 'docs'>,
  caller: Pick<OrgCaller, 'subject'>,
  { orgId, agentId, role }: AgentRoleCheck,
): Promise<OrgAccess> {
  const access = await orgAccess(deps, caller, orgId);
  const held = access.agentRole(agentId);
  if (!roleAtLeast(held, role)) {
    const has = held === undefined ? 'no role' : `the ${agentRoleNames[held]} role`;
    throw new PlatformError(
      'agent_role_required',
      `You need the ${agentRoleNames[role]} role on agent ` +
        `"${agentId}" for this (you have ${has}); ask an Organization Owner to ` + `add you to a group that gives it.`,
      { status: 403 },
    );
  }
  return access;
}

/** Who holds what in `orgId` now: the input of the last-owner rule. */
export async function loadSnapshot(deps: Pick<OrgDeps, 'docs'>, orgId: string): Promise<OrgSnapshot> {
  const [members, groups, memberships] = await Promise.all([
    deps.docs.collection<MemberRecord>(orgCollections.members).find({ orgId }),
    deps.docs.collection<GroupRecord>(orgCollections.groups).find({ orgId }),
    deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).find({ orgId }),
  ]);
  return {
    memberIds: members.map((m) => m._id),
    groups: groups.map((g) => ({ id: g._id, permissions: g.permissions })),
    memberships: memberships.map((m) => ({ groupId: m.groupId, memberId: m.memberId })),
  };
}
