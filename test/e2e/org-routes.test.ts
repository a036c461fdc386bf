/**
 * Organization routes of the real API (bins/api/main.ts over HTTP): under dev-user the fixed user owns
 * a default organization created at boot; under oidc (a real local OpenID provider) each person's first
 * sign-in gets a personal organization (racing first requests create one), a member without
 * organization:manage is refused with 403 `permission_required`, and the last Organization Owner cannot
 * be removed on any path. Bodies and query strings are checked (400 naming the field).
 *
 * Source: spec/platform-service.md § Authentication rule 8, § Errors; docs/decisions.md D7 § Organizations
 * and roles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let provider: RunningOidcProvider;
let devApi: RunningApi;
let oidcApi: RunningApi;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  redis = await startRedis();
  provider = await startOidcProvider(threePeople);
  [devApi, oidcApi] = await Promise.all([startApi(redis.url), startApi(redis.url, oidcSignInEnv(provider))]);
  Object.assign(tokens, await tokensOf(provider));
}, 120_000);

afterAll(async () => {
  await Promise.all([devApi?.stop(), oidcApi?.stop()]);
  await provider?.stop();
  await redis?.stop();
});

interface Answer { status: number; body: Record<string, any> }

async function call(api: RunningApi, method: string, path: string, options: { as?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.as) headers.authorization = `Bearer ${tokens[options.as]}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
const dev = (method: string, path: string, body?: unknown) => call(devApi, method, path, { body });
const as = (who: string, method: string, path: string, body?: unknown) => call(oidcApi, method, path, { as: who, body });

describe('under dev-user sign-in', () => {
  let orgId: string;
  let devMemberId: string;

  it('the fixed user owns a default organization created at boot', async () => {
    expect(devApi.output()).toContain('default organization ready');
    const list = await dev('GET', '/api/orgs');
    expect(list.status).toBe(200);
    expect(list.body.organizations).toHaveLength(1);
    expect(list.body.organizations[0]).toMatchObject({ name: 'Default organization', kind: 'default' });
    orgId = list.body.organizations[0].id;
    const detail = await dev('GET', `/api/orgs/${orgId}`);
    expect(detail.body.you).toMatchObject({ permissions: ['workflows:use', 'sessions:personal', 'organization:manage', 'agents:create'], groups: [{ id: `${orgId}.owner`, name: 'Organization Owner' }] });
    devMemberId = detail.body.you.memberId;
    const members = await dev('GET', `/api/orgs/${orgId}/members`);
    expect(members.body.members).toEqual([expect.objectContaining({ id: devMemberId, subject: 'dev-user', email: 'dev@localhost', groups: [`${orgId}.owner`] })]);
  });

  it('refuses to remove the last Organization Owner by every route that could', async () => {
    const refusals = [
      await dev('DELETE', `/api/orgs/${orgId}/members/${devMemberId}`),
      await dev('DELETE', `/api/orgs/${orgId}/groups/${orgId}.owner/members/${devMemberId}`),
      await dev('PUT', `/api/orgs/${orgId}/groups/${orgId}.owner`, { permissions: ['workflows:use'] }),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('last_owner');
      expect(r.body.error.message).toContain('Add another member to the Organization Owner group first');
    }
    expect((await dev('DELETE', `/api/orgs/${orgId}/groups/${orgId}.owner`)).body.error.code).toBe('builtin_group');
    expect((await dev('GET', `/api/orgs/${orgId}`)).body.you.permissions).toContain('organization:manage');
  });

  it('checks bodies and query strings with 400 naming the field, and answers 404 for an unknown organization', async () => {
    const cases: [Answer, string][] = [
      [await dev('POST', '/api/orgs', { name: 5 }), '/name'],
      [await dev('POST', '/api/orgs', { name: 'x', color: 'red' }), '/color'],
      [await dev('POST', `/api/orgs/${orgId}/groups`, { name: 'Ops', permissions: ['fly'] }), '/permissions/0'],
      [await dev('PUT', `/api/orgs/${orgId}/groups/${orgId}.user`, { agentRoles: [{ agent: 'a1', role: 'boss' }] }), '/agentRoles/0/role'],
    ];
    for (const [answer, field] of cases) {
      expect(answer.status, field).toBe(400);
      expect(answer.body.error.code).toBe('invalid_argument');
      expect(answer.body.error.message).toContain(field);
    }
    const query = await dev('GET', '/api/orgs?limit=5');
    expect([query.status, query.body.error]).toEqual([400, { code: 'invalid_argument', message: 'This route takes no query parameters; remove "limit".' }]);
    expect((await dev('GET', '/api/orgs/no-such-org')).status).toBe(404);
    expect((await call(devApi, 'POST', '/api/orgs', { raw: '{' })).body.error.code).toBe('invalid_json');
  });

  it('adds nobody without consent: POST …/members is gone (410, pointing to invitations)', async () => {
    const added = await dev('POST', `/api/orgs/${orgId}/members`, { subject: 'sub-eve', email: 'eve@example.com', name: 'Eve' });
    expect([added.status, added.body.error.code]).toEqual([410, 'members_join_by_invitation']);
    expect(added.body.error.message).toContain('POST /api/orgs/<org>/invitations');
    expect((await dev('GET', `/api/orgs/${orgId}/members`)).body.members).toHaveLength(1);
  });

  it('creates a group with agent roles and puts a member in and out of it', async () => {
    const group = await dev('POST', `/api/orgs/${orgId}/groups`, { name: 'Flight crew', permissions: ['sessions:personal'], agentRoles: [{ agent: 'flights', role: 'maintainer' }] });
    expect(group.status).toBe(201);
    const joined = await dev('POST', `/api/orgs/${orgId}/groups/${group.body.id}/members/${devMemberId}`);
    expect(joined.body.groups.sort()).toEqual([`${orgId}.owner`, group.body.id].sort());
    const changed = await dev('PUT', `/api/orgs/${orgId}/groups/${group.body.id}`, { agentRoles: [{ agent: 'flights', role: 'administrator' }] });
    expect(changed.body).toMatchObject({
      name: 'Flight crew', permissions: ['sessions:personal'],
      agentRoles: [{ agent: 'flights', role: 'administrator' }], members: [devMemberId],
    });
    expect((await dev('DELETE', `/api/orgs/${orgId}/groups/${group.body.id}/members/${devMemberId}`)).body.members)
      .toEqual([]);
    expect((await dev('DELETE', `/api/orgs/${orgId}/groups/${group.body.id}`)).status).toBe(200);
  });
});

/** `who` joins `org` by accepting an invitation `inviter` sent to their address. @returns their member id */
async function invite(inviter: string, org: string, who: string, groups?: string[]): Promise<string> {
  const sent = await as(inviter, 'POST', `/api/orgs/${org}/invitations`, {
    email: `${who}@example.com`, ...(groups ? { groups } : {}),
  });
  expect(sent.status).toBe(201);
  const token = (sent.body.link as string).split('/invite/')[1];
  const joined = await as(who, 'POST', `/api/invitations/link/${token}/join`);
  expect([joined.status, joined.body.status]).toEqual([200, 'accepted']);
  return joined.body.memberId as string;
}

describe('under oidc sign-in', () => {
  it('a first sign-in gets a personal organization; two racing first requests create one', async () => {
    const [first, second] = await Promise.all([as('bob', 'GET', '/api/orgs'), as('bob', 'GET', '/api/orgs')]);
    expect(first.body.organizations).toEqual(second.body.organizations);
    expect(first.body.organizations).toEqual([expect.objectContaining({ name: 'Bob (personal)', kind: 'personal' })]);
    expect((await as('bob', 'GET', '/api/orgs')).body.organizations).toEqual(first.body.organizations);
    expect((await call(oidcApi, 'GET', '/api/orgs')).status).toBe(401);
  });

  it('a member without organization:manage is refused with 403 permission_required; a non-member gets 404', async () => {
    const acme = await as('ada', 'POST', '/api/orgs', { name: 'Acme' });
    expect(acme.status).toBe(201);
    const org = acme.body.id as string;
    const bobId = await invite('ada', org, 'bob');
    expect((await as('bob', 'GET', '/api/orgs')).body.organizations.map((o: { name: string }) => o.name)).toEqual(['Acme', 'Bob (personal)']);
    expect((await as('bob', 'GET', `/api/orgs/${org}/members`)).status).toBe(200);
    const refusals = [
      await as('bob', 'POST', `/api/orgs/${org}/invitations`, { email: 'cy@example.com' }),
      await as('bob', 'POST', `/api/orgs/${org}/groups`, { name: 'Mine' }),
      await as('bob', 'PUT', `/api/orgs/${org}/groups/${org}.user`, { permissions: ['organization:manage'] }),
      await as('bob', 'POST', `/api/orgs/${org}/groups/${org}.owner/members/${bobId}`),
      await as('bob', 'DELETE', `/api/orgs/${org}/members/${acme.body.you.memberId}`),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(403);
      expect(r.body.error).toEqual({ code: 'permission_required', message: 'You need the organization:manage permission in organization "Acme" for this; ask an Organization Owner to add you to a group that grants it.' });
    }
    expect((await as('bob', 'GET', `/api/orgs/${org}`)).body.you.permissions).toEqual(['workflows:use']);
    const foreign = await as('cy', 'GET', `/api/orgs/${org}`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain(org);
  });

  it('ownership passes on, and the last owner cannot leave', async () => {
    const org = (await as('ada', 'GET', '/api/orgs')).body.organizations.find((o: { name: string }) => o.name === 'Acme').id as string;
    const members = (await as('ada', 'GET', `/api/orgs/${org}/members`)).body.members as { id: string; subject: string }[];
    const [adaId, bobId] = ['ada', 'bob'].map((s) => members.find((m) => m.subject === s)!.id);
    expect((await as('ada', 'POST', `/api/orgs/${org}/groups/${org}.owner/members/${bobId}`)).status).toBe(200);
    expect((await as('ada', 'DELETE', `/api/orgs/${org}/members/${adaId}`)).body).toEqual({ removed: adaId });
    expect((await as('ada', 'GET', `/api/orgs/${org}`)).status).toBe(404);
    const leaving = await as('bob', 'DELETE', `/api/orgs/${org}/members/${bobId}`);
    expect([leaving.status, leaving.body.error.code]).toEqual([409, 'last_owner']);
    expect((await as('bob', 'POST', `/api/orgs/${org}/groups`, { name: 'Ops' })).status).toBe(201);
  });
});
