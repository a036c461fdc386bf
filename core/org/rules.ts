/**
 * Pure rules of organizations: the agent-role order, a member's effective permissions and role on an
 * agent (the highest their groups give), the built-in groups, and the refusal of a change that would
 * leave an organization without an Organization Owner.
 *
 * An Organization Owner is a member who holds `organization:manage` through one of their groups (the
 * built-in Organization Owner group grants it); every change that could take the last one away
 * (removing the member, removing them from a group, deleting a group, changing a group's permissions)
 * is checked with {@link assertKeepsOwner} on the organization as it would be after the change.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D7 § Organizations and roles.
 */
import { PlatformError } from '../ports/platform-error.ts';
import {
  type AgentRole,
  type AgentRoleGrant,
  agentRoles,
  type BuiltinGroupKey,
  type Permission,
  permissions,
} from './model.ts';

/** Display names of the agent roles (spec wording), for messages. */
export const agentRoleNames: Readonly<Record<AgentRole, string>> = {
  reader: 'Reader',
  user: 'User',
  maintainer: 'Maintainer',
  administrator: 'Administrator',
};

/** Rank of `role`: Reader 0 < User 1 < Maintainer 2 < Administrator 3. */
export function roleRank(role: AgentRole): number {
  return agentRoles.indexOf(role);
}

/** True when `held` is at least `needed` (an absent role holds nothing). */
export function roleAtLeast(held: AgentRole | undefined, needed: AgentRole): boolean {
  return held !== undefined && roleRank(held) >= roleRank(needed);
}

/** The highest of `roles`, or undefined when there is none. */
export function highestRole(roles: Iterable<AgentRole>): AgentRole | undefined {
  let best: AgentRole | undefined;
  for (const role of roles) if (best === undefined || roleRank(role) > roleRank(best)) best = role;
  return best;
}

/** What a group grants (the parts of a group record the rules read). */
export interface Grants {
  permissions: readonly Permission[];
  agentRoles: readonly AgentRoleGrant[];
}

/** The union of the permissions of `groups`, in catalog order. */
export function effectivePermissions(groups: readonly Grants[]): Permission[] {
  const held = new Set(groups.flatMap((g) => g.permissions));
  return permissions.filter((p) => held.has(p));
}

/** A member's role on `agentId`: the highest any of their groups gives it (directly or through `*`), or undefined. */
export function effectiveAgentRole(groups: readonly Grants[], agentId: string): AgentRole | undefined {
  return highestRole(
    groups.flatMap((g) => g.agentRoles.filter((a) => a.agent === agentId || a.agent === '*').map((a) => a.role)),
  );
}

/** A built-in group's definition. */
export interface BuiltinGroup extends Grants {
  key: BuiltinGroupKey;
  name: string;
}

/**
 * The built-in groups every organization starts with (the spec names them; the full catalog is not
 * shown, so what each grants is cairn's choice): Organization Owner holds every permission and
 * Administrator on every agent; Administrator all but organization:manage; Maintainer uses workflows
 * and creates agents, Maintainer on every agent; User uses workflows, User on every agent.
 */
export const builtinGroups: readonly BuiltinGroup[] = [
  {
    key: 'owner',
    name: 'Organization Owner',
    permissions: [...permissions],
    agentRoles: [{ agent: '*', role: 'administrator' }],
  },
  {
    key: 'administrator',
    name: 'Administrator',
    permissions: ['workflows:use', 'sessions:personal', 'agents:create'],
    agentRoles: [{ agent: '*', role: 'administrator' }],
  },
  {
    key: 'maintainer',
    name: 'Maintainer',
    permissions: ['workflows:use', 'agents:create'],
    agentRoles: [{ agent: '*', role: 'maintainer' }],
  },
  { key: 'user', name: 'User', permissions: ['workflows:use'], agentRoles: [{ agent: '*', role: 'user' }] },
];

/** The id of built-in group `key` of organization `orgId`. */
export function builtinGroupId(orgId: string, key: BuiltinGroupKey): string {
  return `${orgId}.${key}`;
}

/** The id of the membership of `memberId` in `groupId`. */
export function membershipId(groupId: string, memberId: string): string {
  return `${groupId}:${memberId}`;
}

/** Who holds what in one organization: the input of the last-owner rule. */
export interface OrgSnapshot {
  memberIds: readonly string[];
  groups: readonly { id: string; permissions: readonly Permission[] }[];
  memberships: readonly { groupId: string; memberId: string }[];
}

/** Members holding `organization:manage` through a group (the Organization Owners). */
export function ownerIds(snapshot: OrgSnapshot): Set<string> {
  const managing = new Set(
    snapshot.groups.filter((g) => g.permissions.includes('organization:manage')).map((g) => g.id),
  );
  const members = new Set(snapshot.memberIds);
  return new Set(
    snapshot.memberships.filter((m) => managing.has(m.groupId) && members.has(m.memberId)).map((m) => m.memberId),
  );
}

/** The snapshot without member `memberId` (and their memberships). */
export function withoutMember(s: OrgSnapshot, memberId: string): OrgSnapshot {
  return {
    memberIds: s.memberIds.filter((id) => id !== memberId),
    groups: s.groups,
    memberships: s.memberships.filter((m) => m.memberId !== memberId),
  };
}

/** The snapshot without the membership of `memberId` in `groupId`. */
export function withoutMembership(s: OrgSnapshot, groupId: string, memberId: string): OrgSnapshot {
  return { ...s, memberships: s.memberships.filter((m) => !(m.groupId === groupId && m.memberId === memberId)) };
}

/** The snapshot without group `groupId` (and its memberships). */
export function withoutGroup(s: OrgSnapshot, groupId: string): OrgSnapshot {
  return {
    memberIds: s.memberIds,
    groups: s.groups.filter((g) => g.id !== groupId),
    memberships: s.memberships.filter((m) => m.groupId !== groupId),
  };
}

/** The snapshot with group `groupId` granting `granted` instead. */
export function withGroupPermissions(s: OrgSnapshot, groupId: string, granted: readonly Permission[]): OrgSnapshot {
  return { ...s, groups: s.groups.map((g) => (g.id === groupId ? { id: g.id, permissions: granted } : g)) };
}

/**
 * Refuses a change that would take away the organization's last Organization Owner.
 * @param before - the organization now; `after` - as the change would leave it; `orgName` - for the message
 * @throws PlatformError `last_owner` (409) when `before` has an owner and `after` has none
 */
export function assertKeepsOwner(before: OrgSnapshot, after: OrgSnapshot, orgName: string): void {
  if (ownerIds(before).size === 0 || ownerIds(after).size > 0) return;
  throw new PlatformError(
    'last_owner',
    `This change would leave organization "${orgName}" without an Organization Owner (a member holding ` +
      `organization:manage). Add another member to the Organization Owner group first, then retry.`,
    { status: 409 },
  );
}
