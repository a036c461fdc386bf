/**
 * Role checks of the agent routes over real HTTP under oidc sign-in (a real local OpenID provider): a
 * member of the User group reads an agent, its environment and its operations but is refused saving, publishing
 * and promoting with 403 `agent_role_required` at once (no operation is queued), and creating an agent with 403 `permission_required` (also
 * through `cairn agent import` as a real process, exit 1); a non-member sees no agent (404).
 *
 * Source: spec/platform-service.md § Authentication rule 8, § Errors; docs/decisions.md D7 § Organizations
 * and
 * roles, § Agents and environments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher, waitForOperation, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { repoRoot, runCairn } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let provider: RunningOidcProvider;
let api: RunningApi;
let dispatcher: RunningDispatcher;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  redis = await startRedis();
  provider = await startOidcProvider(threePeople);
  api = await startApi(redis.url, oidcSignInEnv(provider));
  dispatcher = await startDispatcher(api, redis.url, oidcSignInEnv(provider));
  Object.assign(tokens, await tokensOf(provider));
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  await api?.stop();
  await provider?.stop();
  await redis?.stop();
});

async function as(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[who]}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('agent routes check the caller\'s role', () => {
  it('a User reads but cannot change or create; a non-member sees nothing', async () => {
    const org = (await as('ada', 'POST', '/api/orgs', { name: 'Acme' })).body.id as string;
    const created = await as('ada', 'POST', `/api/orgs/${org}/agents`, { slug: 'helper' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'helper', name: 'New agent' });
    const agent = created.body.id as string;
    const asked = await as('ada', 'POST', `/api/agents/${agent}/environments/main/publish`);
    expect([asked.status, asked.body.operation.status]).toEqual([202, 'queued']);
    const published = await waitForOperation(api.url, agent, asked.body.operation.id, { authorization: `Bearer ${tokens.ada}` });
    expect(published.result!.published.counts).toEqual({ workflows: 1, states: 1, triggers: 1, skills: 0, tests: 0 });
    const invited = await as('ada', 'POST', `/api/orgs/${org}/invitations`, {
      email: 'bob@example.com', groups: [`${org}.user`],
    });
    expect(invited.status).toBe(201);
    const joined = await as(
      'bob', 'POST', `/api/invitations/link/${(invited.body.link as string).split('/invite/')[1]}/join`,
    );
    expect(joined.body.status).toBe('accepted');

    expect((await as('bob', 'GET', `/api/orgs/${org}/agents`)).body.agents.map((a: { slug: string }) => a.slug)).toEqual(['helper']);
    expect((await as('bob', 'GET', `/api/agents/${agent}/environments/main`)).status).toBe(200);
    // The agent's answer says the caller's role (the web app offers Design and Skills to a Maintainer or above).
    expect((await as('bob', 'GET', `/api/agents/${agent}`)).body.you).toEqual({ role: 'user' });
    expect((await as('ada', 'GET', `/api/agents/${agent}`)).body.you).toEqual({ role: 'administrator' });
    expect((await as('bob', 'GET', `/api/agents/${agent}/operations/${published.id}`)).body.operation).toMatchObject({ kind: 'publish', status: 'succeeded' });
    const refusals = [
      await as('bob', 'PUT', `/api/agents/${agent}/environments/main/files`, { files: [{ path: 'NOTES.md', text: 'hi' }] }),
      await as('bob', 'POST', `/api/agents/${agent}/environments/main/publish`),
      await as('bob', 'POST', `/api/agents/${agent}/environments/main/promote`, { to: 'staging' }),
    ];
    for (const r of refusals) expect([r.status, r.body.error.code]).toEqual([403, 'agent_role_required']);
    expect(refusals[0].body.error.message).toContain('You need the Maintainer role on this agent');
    const create = await as('bob', 'POST', `/api/orgs/${org}/agents`, { slug: 'mine' });
    expect([create.status, create.body.error.code]).toEqual([403, 'permission_required']);
    const cli = runCairn(api.url, ['--token', tokens.bob, 'agent', 'import', `${repoRoot}/scripts/demo/agent`, '--agent', 'mine', '--org', org]);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('agents:create permission');

    expect((await as('cy', 'GET', `/api/agents/${agent}`)).body.error.code).toBe('agent_not_found');
    expect((await as('cy', 'GET', `/api/agents/${agent}/operations/${published.id}`)).body.error.code).toBe('agent_not_found');
    expect((await as('cy', 'GET', `/api/orgs/${org}/agents`)).status).toBe(404);
  });
});
