/**
 * Pure rules of organizations as tables: the role order, a member's effective role (the highest their
 * groups give) and permissions (the union), and the last-owner refusal on every kind of change.
 */
import { describe, expect, it } from 'vitest';
import { isPlatformError } from '../ports/platform-error.ts';
import type { AgentRole, AgentRoleGrant, Permission } from './model.ts';
import {
  assertKeepsOwner,
  builtinGroups,
  effectiveAgentRole,
  effectivePermissions,
  highestRole,
  type OrgSnapshot,
  ownerIds,
  roleAtLeast,
  withGroupPermissions,
  withoutGroup,
  withoutMember,
  withoutMembership,
} from './rules.ts';

const grants = (...agentRoles: [string, AgentRole][]) => ({
  permissions: [] as Permission[],
  agentRoles: agentRoles.map(([agent, role]): AgentRoleGrant => ({ agent, role })),
});

describe('agent role order', () => {
  it.each([
    [[], undefined],
    [['reader'], 'reader'],
    [['user', 'reader'], 'user'],
    [['reader', 'maintainer', 'user'], 'maintainer'],
    [['administrator', 'reader'], 'administrator'],
  ] as [AgentRole[], AgentRole | undefined][])('the highest of %j is %s', (roles, highest) => {
    expect(highestRole(roles)).toBe(highest);
  });

  it.each([
    ['reader', 'reader', true],
    ['reader', 'user', false],
    ['user', 'reader', true],
    ['maintainer', 'administrator', false],
    ['administrator', 'maintainer', true],
    [undefined, 'reader', false],
  ] as [AgentRole | undefined, AgentRole, boolean][])('holding %s is at least %s: %s', (held, needed, ok) => {
    expect(roleAtLeast(held, needed)).toBe(ok);
  });
});

describe('effective role on an agent', () => {
  it.each([
    ['no groups', [], 'a1', undefined],
    ['a group for another agent', [grants(['a2', 'administrator'])], 'a1', undefined],
    ['one group', [grants(['a1', 'user'])], 'a1', 'user'],
    ['the highest of two groups', [grants(['a1', 'reader']), grants(['a1', 'maintainer'])], 'a1', 'maintainer'],
    ['every agent (*) beats a lower direct grant', [grants(['a1', 'reader']), grants(['*', 'user'])], 'a1', 'user'],
    ['a direct grant beats a lower * grant', [grants(['*', 'reader'], ['a1', 'administrator'])], 'a1', 'administrator'],
    ['* reaches any agent', [grants(['*', 'maintainer'])], 'anything', 'maintainer'],
  ] as [string, ReturnType<typeof grants>[], string, AgentRole | undefined][])('%s', (_why, groups, agent, role) => {
    expect(effectiveAgentRole(groups, agent)).toBe(role);
  });
});

describe('effective permissions', () => {
  it.each([
    [[], []],
    [[['workflows:use']], ['workflows:use']],
    [[['agents:create', 'workflows:use'], ['workflows:use', 'organization:manage']], [
      'workflows:use',
      'organization:manage',
      'agents:create',
    ]],
    [[['sessions:personal'], []], ['sessions:personal']],
  ] as [Permission[][], Permission[]][])('the union of %j is %j (catalog order, each once)', (sets, union) => {
    expect(effectivePermissions(sets.map((permissions) => ({ permissions, agentRoles: [] })))).toEqual(union);
  });

  it('built-in groups: only Organization Owner holds organization:manage; each gives every agent a role', () => {
    expect(
      builtinGroups.map((g) => [g.name, g.permissions.includes('organization:manage'), effectiveAgentRole([g], 'any')]),
    ).toEqual([
      ['Organization Owner', true, 'administrator'],
      ['Administrator', false, 'administrator'],
      ['Maintainer', false, 'maintainer'],
      ['User', false, 'user'],
    ]);
  });
});

/** Two owners (m1 through the Owner group, m2 through a custom managing group) and a user. */
const org: OrgSnapshot = {
  memberIds: ['m1', 'm2', 'm3'],
  groups: [{ id: 'owner', permissions: ['organization:manage', 'workflows:use'] }, {
    id: 'admins',
    permissions: ['organization:manage'],
  }, { id: 'users', permissions: ['workflows:use'] }],
  memberships: [{ groupId: 'owner', memberId: 'm1' }, { groupId: 'admins', memberId: 'm2' }, {
    groupId: 'users',
    memberId: 'm3',
  }, { groupId: 'users', memberId: 'm1' }],
};
/** The same with m1 the only owner. */
const single: OrgSnapshot = withoutMember(org, 'm2');

function refusal(before: OrgSnapshot, after: OrgSnapshot): string | undefined {
  try {
    assertKeepsOwner(before, after, 'Acme');
    return undefined;
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    expect(error.status).toBe(409);
    expect(error.message).toContain('Add another member to the Organization Owner group first');
    return error.code;
  }
}

describe('last Organization Owner', () => {
  it('owners are the members holding organization:manage through a group', () => {
    expect([...ownerIds(org)].sort()).toEqual(['m1', 'm2']);
    expect([...ownerIds(single)]).toEqual(['m1']);
  });

  it.each([
    ['removing the member', (s: OrgSnapshot) => withoutMember(s, 'm1')],
    ['removing them from the group', (s: OrgSnapshot) => withoutMembership(s, 'owner', 'm1')],
    ['deleting the group', (s: OrgSnapshot) => withoutGroup(s, 'owner')],
    [
      'changing the group to drop organization:manage',
      (s: OrgSnapshot) => withGroupPermissions(s, 'owner', ['workflows:use']),
    ],
  ])(
    '%s: refused with last_owner when they are the last owner, allowed while another owner remains',
    (_path, change) => {
      expect(refusal(single, change(single))).toBe('last_owner');
      expect(refusal(org, change(org))).toBeUndefined();
    },
  );

  it('changes that keep the owner are allowed', () => {
    expect(refusal(single, withoutMember(single, 'm3'))).toBeUndefined();
    expect(refusal(single, withoutMembership(single, 'users', 'm1'))).toBeUndefined();
    expect(refusal(single, withoutGroup(single, 'users'))).toBeUndefined();
    expect(refusal(single, withGroupPermissions(single, 'owner', ['organization:manage']))).toBeUndefined();
  });

  it('removing both owners one change at a time refuses the second', () => {
    const afterFirst = withoutMember(org, 'm2');
    expect(refusal(org, afterFirst)).toBeUndefined();
    expect(refusal(afterFirst, withoutMembership(afterFirst, 'owner', 'm1'))).toBe('last_owner');
  });
});
