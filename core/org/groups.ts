/**
 * Groups of an organization: listing, creating, setting permissions and agent roles, deleting, and
 * adding or removing members; every change that could take away the last Organization Owner is refused.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
import { Value } from '@sinclair/typebox/value';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { loadSnapshot } from './access.ts';
import {
  AgentRoleGrant,
  type GroupMemberRecord,
  type GroupRecord,
  type OrganizationRecord,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
  type Permission,
  permissions as permissionCatalog,
} from './model.ts';
import { addMembership, getGroup, getMember } from './members.ts';
import { assertKeepsOwner, membershipId, withGroupPermissions, withoutGroup, withoutMembership } from './rules.ts';

/** A group with the ids of its members. */
export interface GroupView {
  group: GroupRecord;
  memberIds: string[];
}

/** Every group of `orgId` with its members: built-in groups first (Owner, Administrator, Maintainer, User), then by
 * name. */
export async function listGroups(deps: Pick<OrgDeps, 'docs'>, orgId: string): Promise<GroupView[]> {
  const groups = await deps.docs.collection<GroupRecord>(orgCollections.groups).find({ orgId }, { sort: { name: 1 } });
  const memberships = await deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).find({ orgId }, {
    sort: { memberId: 1 },
  });
  const order = ['owner', 'administrator', 'maintainer', 'user'];
  const rank = (g: GroupRecord) => (g.builtin ? order.indexOf(g.builtin) : order.length);
  return groups.sort((a, b) => rank(a) - rank(b)).map((group) => ({
    group,
    memberIds: memberships.filter((m) => m.groupId === group._id).map((m) => m.memberId),
  }));
}

/** What a group grants, as a caller sets it. */
export interface GroupChange {
  name?: string;
  permissions?: readonly Permission[];
  agentRoles?: readonly AgentRoleGrant[];
}

/**
 * Checks and normalises a change: a name of 1–100 characters, known permissions (each once, catalog
 * order), valid agent-role grants with each agent once.
 * @throws PlatformError `invalid_argument` (400) naming the field
 */
function normalise(change: GroupChange): GroupChange {
  const name = change.name?.trim();
  if (name !== undefined && (name === '' || name.length > 100)) throw invalid('name must be 1 to 100 characters');
  const unknown = change.permissions?.find((p) => !(permissionCatalog as readonly string[]).includes(p));
  if (unknown !== undefined) {
    throw invalid(
      `permissions holds "${String(unknown).slice(0, 40)}", which is not one of ${permissionCatalog.join(', ')}`,
    );
  }
  const grants = change.agentRoles;
  const bad = grants?.findIndex((g) => !Value.Check(AgentRoleGrant, g)) ?? -1;
  if (bad >= 0) {
    throw invalid(
      `agentRoles/${bad} must be { agent: an agent id or *, role: reader, user, maintainer or administrator }`,
    );
  }
  const agents = grants?.map((g) => g.agent) ?? [];
  const twice = agents.find((a, i) => agents.indexOf(a) !== i);
  if (twice !== undefined) throw invalid(`agentRoles names agent "${twice}" twice; give each agent one role`);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(change.permissions ? { permissions: permissionCatalog.filter((p) => change.permissions!.includes(p)) } : {}),
    ...(grants ? { agentRoles: grants.map((g) => ({ agent: g.agent, role: g.role })) } : {}),
  };
}

function invalid(what: string): PlatformError {
  return new PlatformError('invalid_argument', `Invalid group: ${what}.`, { status: 400 });
}

function nameTaken(name: string): PlatformError {
  return new PlatformError(
    'conflict',
    `A group named "${name}" already exists in this organization; choose another name.`,
    { status: 409 },
  );
}

/**
 * Creates a group in `orgId` (no members yet).
 * @throws PlatformError `invalid_argument` (400); `conflict` (409) when the name is taken
 */
export async function createGroup(
  deps: OrgDeps,
  orgId: string,
  change: GroupChange & { name: string },
): Promise<GroupRecord> {
  const checked = normalise(change);
  const group: GroupRecord = {
    _id: deps.ids.newId(),
    schemaVersion: orgSchemaVersion,
    orgId,
    name: checked.name ?? change.name,
    permissions: [...(checked.permissions ?? [])],
    agentRoles: [...(checked.agentRoles ?? [])],
    createdAt: deps.clock.now(),
  };
  try {
    await deps.docs.collection<GroupRecord>(orgCollections.groups).insertOne(group);
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) throw nameTaken(group.name);
    throw error;
  }
  return group;
}

/**
 * Sets a group's name, permissions and agent roles (fields left out are kept).
 * @throws PlatformError `invalid_argument` (400); `not_found` (404); `conflict` (409) when the name is taken;
 *   `last_owner` (409) when taking organization:manage away would leave no Organization Owner
 */
export async function updateGroup(
  deps: Pick<OrgDeps, 'docs'>,
  org: OrganizationRecord,
  groupId: string,
  change: GroupChange,
): Promise<GroupRecord> {
  const group = await getGroup(deps, org._id, groupId);
  const checked = normalise(change);
  if (checked.permissions) {
    const before = await loadSnapshot(deps, org._id);
    assertKeepsOwner(before, withGroupPermissions(before, groupId, checked.permissions), org.name);
  }
  const next: GroupRecord = { ...group, ...(checked as Partial<GroupRecord>) };
  try {
    await deps.docs.collection<GroupRecord>(orgCollections.groups).updateOne({ orgId: org._id, _id: groupId }, {
      $set: { name: next.name, permissions: next.permissions, agentRoles: next.agentRoles },
    });
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) throw nameTaken(next.name);
    throw error;
  }
  return next;
}

/**
 * Deletes a group that is not built in, with its memberships.
 * @throws PlatformError `not_found` (404); `builtin_group` (409) for a built-in group; `last_owner` (409)
 */
export async function deleteGroup(
  deps: Pick<OrgDeps, 'docs'>,
  org: OrganizationRecord,
  groupId: string,
): Promise<void> {
  const group = await getGroup(deps, org._id, groupId);
  if (group.builtin) {
    throw new PlatformError(
      'builtin_group',
      `"${group.name}" is a built-in group and cannot be deleted; change its members or what it grants instead.`,
      { status: 409 },
    );
  }
  const before = await loadSnapshot(deps, org._id);
  assertKeepsOwner(before, withoutGroup(before, groupId), org.name);
  await deps.docs.collection<GroupRecord>(orgCollections.groups).deleteOne({ orgId: org._id, _id: groupId });
  await deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).deleteMany({ orgId: org._id, groupId });
}

/**
 * Adds member `memberId` to group `groupId` (adding twice keeps one membership).
 * @throws PlatformError `not_found` (404) for a group or member not in the organization
 */
export async function addToGroup(deps: OrgDeps, orgId: string, groupId: string, memberId: string): Promise<void> {
  await getGroup(deps, orgId, groupId);
  await getMember(deps, orgId, memberId);
  await addMembership(deps, orgId, groupId, memberId);
}

/**
 * Removes member `memberId` from group `groupId`.
 * @throws PlatformError `not_found` (404) when the member is not in the group; `last_owner` (409)
 */
export async function removeFromGroup(
  deps: Pick<OrgDeps, 'docs'>,
  org: OrganizationRecord,
  groupId: string,
  memberId: string,
): Promise<void> {
  await getGroup(deps, org._id, groupId);
  const memberships = deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers);
  if (!(await memberships.findOne({ _id: membershipId(groupId, memberId) }))) {
    throw new PlatformError(
      'not_found',
      "That member is not in this group; GET /api/orgs/<org>/groups lists each group's members.",
      { status: 404 },
    );
  }
  const before = await loadSnapshot(deps, org._id);
  assertKeepsOwner(before, withoutMembership(before, groupId, memberId), org.name);
  await memberships.deleteOne({ _id: membershipId(groupId, memberId) });
}
