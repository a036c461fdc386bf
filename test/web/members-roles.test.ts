/**
 * The Members pages' wording of roles: a member's role on agents is the highest their groups give (on
 * every agent, and per agent where a group gives more), their permissions are all their groups give.
 * Source: spec/platform-service.md § Authentication rule 8.
 */
import { describe, expect, it } from 'vitest';
import type { GroupView } from '../../core/org/api-views.ts';
import { grantsSummary, memberPermissions, roleSummary, rolesOf } from '../../web/src/pages/platform/members/roles.ts';
import { statusBadge } from '../../web/src/pages/platform/members/parts.tsx';
import { decisionPath, refusalText } from '../../web/src/pages/platform/members/decide.ts';
import { ApiError } from '../../web/src/api/client.ts';

const group = (id: string, agentRoles: GroupView['agentRoles'], permissions: string[] = []): GroupView => ({ id, name: id, builtin: null, permissions, agentRoles, members: [] });
const groups = [
  group('owners', [{ agent: '*', role: 'administrator' }], ['organization:manage', 'workflows:use']),
  group('users', [{ agent: '*', role: 'user' }], ['workflows:use', 'sessions:personal']),
  group('flights-team', [{ agent: 'flights', role: 'maintainer' }, { agent: 'tpcds', role: 'reader' }, { agent: 'flights', role: 'reader' }], ['agents:create']),
];

describe('role on agents', () => {
  it('is the highest role on every agent when one group gives it to all', () => {
    expect(roleSummary({ groups: ['owners', 'users'] }, groups)).toEqual(['Administrator on every agent']);
  });

  it('names an agent where a group gives more than the every-agent role, with its name, and drops lower ones', () => {
    expect(roleSummary({ groups: ['users', 'flights-team'] }, groups, (id) => id.toUpperCase())).toEqual(['User on every agent', 'Maintainer on FLIGHTS']);
  });

  it('keeps the highest grant per agent when there is no every-agent role', () => {
    expect(rolesOf(groups[2]!.agentRoles)).toEqual({ agents: [{ agent: 'flights', role: 'maintainer' }, { agent: 'tpcds', role: 'reader' }] });
  });

  it('says so when no group gives a role, and ignores groups the member is not in', () => {
    expect(roleSummary({ groups: [] }, groups)).toEqual(['No role on agents']);
    expect(grantsSummary([])).toEqual(['No role on agents']);
  });

  it('gives the permissions of all the member\'s groups in catalog order', () => {
    expect(memberPermissions({ groups: ['flights-team', 'users'] }, groups)).toEqual(['workflows:use', 'sessions:personal', 'agents:create']);
  });
});

describe('invitation wording', () => {
  it('words each status', () => {
    expect(['pending', 'accepted', 'dismissed', 'revoked', 'expired'].map((s) => statusBadge(s).text)).toEqual(['Pending', 'Joined', 'Dismissed', 'Revoked', 'Expired']);
  });

  it('decides by link token or by id', () => {
    expect(decisionPath({ token: 'a/b' }, 'join')).toBe('/api/invitations/link/a%2Fb/join');
    expect(decisionPath({ id: 'inv1' }, 'dismiss')).toBe('/api/invitations/inv1/dismiss');
  });

  it('tells the refusals apart and names who is signed in', () => {
    const other = refusalText(new ApiError(403, 'invitation_other_address', 'x'), 'bob@example.com', 'ada@example.com');
    expect(other.message).toContain('signed in as bob@example.com');
    expect(other.message).toContain('ada@example.com');
    expect(refusalText(new ApiError(409, 'invitation_closed', 'x')).title).toBe('This invitation is closed');
    expect(refusalText(new ApiError(410, 'invitation_expired', 'x')).title).toBe('This invitation has expired');
    expect(refusalText(new Error('boom')).message).toBe('boom');
  });

  it('marks refusals that trying again cannot change as final (the buttons go away), and not an outage', () => {
    expect(['invitation_other_address', 'invitation_closed', 'invitation_expired'].map((code) => refusalText(new ApiError(409, code, 'x')).final)).toEqual([true, true, true]);
    expect(refusalText(new ApiError(0, 'unreachable', 'The cairn server cannot be reached.')).final).toBe(false);
  });
});
