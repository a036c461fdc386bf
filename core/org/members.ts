/**
 * Members of an organization: listing with their groups, adding a signed-in person (by the subject the
 * sign-in asserts), and removing one (never the last Organization Owner).
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { loadSnapshot } from './access.ts';
import {
  type GroupMemberRecord,
  type GroupRecord,
  type MemberRecord,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
} from './model.ts';
import { ensureMember, insertOnce } from './organizations.ts';
import { assertKeepsOwner, builtinGroupId, membershipId, withoutMember } from './rules.ts';

/** A member with the ids of their groups. */
export interface MemberWithGroups {
  member: MemberRecord;
  groupIds: string[];
}

/** Every member of `orgId` with their groups, by email. */
export async function listMembers(deps: Pick<OrgDeps, 'docs'>, orgId: string): Promise<MemberWithGroups[]> {
  const members = await deps.docs.collection<MemberRecord>(orgCollections.members).find({ orgId }, {
    sort: { email: 1, _id: 1 },
  });
  const memberships = await deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).find({ orgId }, {
    sort: { groupId: 1 },
  });
  return members.map((member) => ({
    member,
    groupIds: memberships.filter((m) => m.memberId === member._id).map((m) => m.groupId),
  }));
}

/**
 * The member `memberId` of `orgId`.
 * @throws PlatformError `not_found` (404)
 */
export async function getMember(deps: Pick<OrgDeps, 'docs'>, orgId: string, memberId: string): Promise<MemberRecord> {
  const member = await deps.docs.collection<MemberRecord>(orgCollections.members).findOne({ orgId, _id: memberId });
  if (!member) {
    throw new PlatformError(
      'not_found',
      'No such member in this organization; GET /api/orgs/<org>/members lists them.',
      { status: 404 },
    );
  }
  return member;
}

/** The group `groupId` of `orgId`. @throws PlatformError `not_found` (404) */
export async function getGroup(deps: Pick<OrgDeps, 'docs'>, orgId: string, groupId: string): Promise<GroupRecord> {
  const group = await deps.docs.collection<GroupRecord>(orgCollections.groups).findOne({ orgId, _id: groupId });
  if (!group) {
    throw new PlatformError('not_found', 'No such group in this organization; GET /api/orgs/<org>/groups lists them.', {
      status: 404,
    });
  }
  return group;
}

/**
 * Adds `person` to `orgId` and to `groupIds` (default: the built-in User group), without asking them: no API route
 * calls it (nobody joins without accepting an invitation, spec § Authentication rule 7); for in-process fixtures.
 * @returns the member with their groups
 * @throws PlatformError `conflict` (409) when the person is already a member; `not_found` (404) for a group of
 *   another organization or none
 */
export async function addMember(
  deps: OrgDeps,
  orgId: string,
  person: OrgCaller,
  groupIds?: readonly string[],
): Promise<MemberWithGroups> {
  const wanted = [...new Set(groupIds ?? [builtinGroupId(orgId, 'user')])];
  for (const id of wanted) await getGroup(deps, orgId, id);
  const { member, added } = await ensureMember(deps, orgId, person);
  if (!added) {
    throw new PlatformError(
      'conflict',
      `${person.email} (subject ${person.subject}) is already a member of this organization; add them to groups ` +
        `instead.`,
      { status: 409 },
    );
  }
  for (const groupId of wanted) await addMembership(deps, orgId, groupId, member._id);
  return { member, groupIds: wanted.sort() };
}

/** Stores the membership of `memberId` in `groupId` (once). */
export async function addMembership(deps: OrgDeps, orgId: string, groupId: string, memberId: string): Promise<void> {
  const record: GroupMemberRecord = {
    _id: membershipId(groupId, memberId),
    schemaVersion: orgSchemaVersion,
    orgId,
    groupId,
    memberId,
    addedAt: deps.clock.now(),
  };
  await insertOnce(deps.docs, orgCollections.groupMembers, record);
}

/**
 * Removes member `memberId` from `org` with their group memberships.
 * @throws PlatformError `not_found` (404); `last_owner` (409) when they are its last Organization Owner
 */
export async function removeMember(
  deps: Pick<OrgDeps, 'docs'>,
  org: OrganizationRecord,
  memberId: string,
): Promise<void> {
  await getMember(deps, org._id, memberId);
  const before = await loadSnapshot(deps, org._id);
  assertKeepsOwner(before, withoutMember(before, memberId), org.name);
  await deps.docs.collection<MemberRecord>(orgCollections.members).deleteOne({ orgId: org._id, _id: memberId });
  await deps.docs.collection<GroupMemberRecord>(orgCollections.groupMembers).deleteMany({ orgId: org._id, memberId });
}
