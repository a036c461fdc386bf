/**
 * Semantic projects belong to an organization (docs/decisions.md D17 § 1), over the real API (bins/api/main.ts over
 * HTTP)
 * signing in against a real local OpenID provider:
 * - Ada (her personal organization) creates a project, saves a model, publishes it and mints a token; Bob (his
 *   own organization) drives every /api/semantic route against it and gets 404 with exactly the body of a project
 *   that does not exist, naming nothing of Ada's (slug, project id, organization id or name), while Ada's own
 *   calls succeed (the positive control) and nothing Bob sent changed her project;
 * - within Ada's organization, Cy with the Reader role on the project reads but may not mint a playground token,
 *   edit, publish or manage tokens (403 naming the role needed), and once her group gives Maintainer she may;
 * - creation names the organization: the caller's only one by default, 409 `ambiguous_organization` when she is
 *   in several (the API and `cairn semantic import`, which takes --org), `agents:create` needed there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { runCairn } from '../helpers/product.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';
import {
  oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider,
} from '../helpers/oidc-provider.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let provider: RunningOidcProvider;
let api: RunningApi;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  redis = await startRedis();
  provider = await startOidcProvider(threePeople);
  api = await startApi(redis.url, oidcSignInEnv(provider));
  Object.assign(tokens, await tokensOf(provider));
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await provider?.stop();
  await redis?.stop();
});

interface Answer { status: number; text: string; body: Record<string, any> }
interface TokenRow { id: string; name: string; state: string }

/** One call as `who`: a JSON body, or raw bytes (`bytes`) for a blob upload. */
async function as(who: string, method: string, path: string, body?: unknown, bytes?: Uint8Array): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[who]}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bytes !== undefined) headers['content-type'] = 'application/octet-stream';
  const json = body === undefined ? undefined : JSON.stringify(body);
  const payload: BodyInit | undefined = bytes ? new Blob([bytes as Uint8Array<ArrayBuffer>]) : json;
  const response = await fetch(`${api.url}${path}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, any> };
}

const model = (name: string) => [
  'version: "0.1.1"', 'semantic_model:', `  - name: ${name}`, '    datasets:', '      - name: t',
  '        source: data.t', '        fields:', '          - name: id', '            expression:',
  '              dialects:',
  '                - dialect: ANSI_SQL', '                  expression: id', '',
].join('\n');
const csv = new TextEncoder().encode('id\n1\n2\n');

/** Every route under /api/semantic/projects/:slug, with a body each accepts. */
function projectRoutes(slug: string, tokenId: string): [string, string, unknown?, Uint8Array?][] {
  const p = `/api/semantic/projects/${slug}`;
  return [
    ['GET', p], ['PATCH', p, { name: 'Renamed by a stranger' }], ['PUT', `${p}/blobs/t.csv`, undefined, csv],
    ['GET', `${p}/sources`], ['POST', `${p}/sources`, { models: { 'x.yaml': model('x') }, data: [], replace: true }],
    ['POST', `${p}/validate`, { models: { 'x.yaml': model('x') } }], ['GET', `${p}/changes`], ['POST', `${p}/publish`],
    ['GET', `${p}/tokens`], ['POST', `${p}/tokens`, { name: 'stolen', models: ['secret_model'] }],
    ['DELETE', `${p}/tokens/${tokenId}`],
    ['GET', `${p}/calls`], ['GET', `${p}/calls/stats`], ['GET', `${p}/calls/tokens`],
    ['GET', `${p}/improvements`], ['GET', `${p}/improvements/list`],
    ['POST', `${p}/improvements/imp-1/done`], ['DELETE', `${p}/improvements/imp-1/done`],
    ['POST', `${p}/playground-token`],
  ];
}

describe('semantic projects of two organizations under oidc', () => {
  let adaOrg: { id: string; name: string };
  let project: Record<string, any>;
  let tokenId: string;

  it('Ada creates a project in her only organization, saves, publishes and mints a token', async () => {
    adaOrg = (await as('ada', 'GET', '/api/orgs')).body.organizations[0];
    expect((await as('bob', 'GET', '/api/orgs')).body.organizations).toHaveLength(1);
    const created = await as('ada', 'POST', '/api/semantic/projects', { slug: 'ada-secret', name: 'Ada secret' });
    expect(created.status).toBe(201);
    project = created.body;
    expect(project).toMatchObject({ slug: 'ada-secret', orgId: adaOrg.id });
    expect((await as('ada', 'PUT', '/api/semantic/projects/ada-secret/blobs/t.csv', undefined, csv)).status).toBe(201);
    const sources = { models: { 'secret_model.yaml': model('secret_model') }, data: [] };
    const saved = await as('ada', 'POST', '/api/semantic/projects/ada-secret/sources', sources);
    expect(saved.status).toBe(200);
    expect((await as('ada', 'POST', '/api/semantic/projects/ada-secret/publish')).status).toBe(200);
    const wanted = { name: 'ada-token', models: ['secret_model'] };
    const token = await as('ada', 'POST', '/api/semantic/projects/ada-secret/tokens', wanted);
    expect(token.status).toBe(201);
    tokenId = token.body.id;
  });

  it('Bob gets, on every route, exactly the 404 of a missing project, naming nothing of Ada\'s', async () => {
    const secrets = ['ada-secret', project.id, adaOrg.id, adaOrg.name, 'Ada', tokenId, 'secret_model'];
    const bobs = projectRoutes('ada-secret', tokenId);
    const missing = projectRoutes('no-such-project', tokenId);
    for (const [i, [method, path, body, bytes]] of bobs.entries()) {
      const answer = await as('bob', method, path, body, bytes);
      const nothing = await as('bob', missing[i]![0], missing[i]![1], missing[i]![2], missing[i]![3]);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body, `${method} ${path}`).toEqual(nothing.body);
      for (const secret of secrets) expect(answer.text, `${method} ${path}`).not.toContain(secret);
    }
    const list = await as('bob', 'GET', '/api/semantic/projects');
    expect(list.body.projects).toEqual([]);
    const listed = await as('bob', 'GET', `/api/semantic/projects?orgId=${adaOrg.id}`);
    const created = await as('bob', 'POST', '/api/semantic/projects', { slug: 'bobs', orgId: adaOrg.id });
    for (const answer of [listed, created]) {
      expect(answer.status).toBe(404);
      for (const secret of secrets) expect(answer.text).not.toContain(secret);
    }
  });

  it('Ada\'s own calls on the same routes succeed, and nothing Bob sent changed her project', async () => {
    const detail = await as('ada', 'GET', '/api/semantic/projects/ada-secret');
    const unchanged = { name: 'Ada secret', orgId: adaOrg.id, models: ['secret_model.yaml'], publishedRevision: 1 };
    expect(detail.body).toMatchObject(unchanged);
    const tokenList = async () =>
      (await as('ada', 'GET', '/api/semantic/projects/ada-secret/tokens')).body.tokens as TokenRow[];
    expect((await tokenList()).map((t) => t.name)).toEqual(['ada-token']);
    const slugs = (await as('ada', 'GET', '/api/semantic/projects')).body.projects.map((p: { slug: string }) => p.slug);
    expect(slugs).toEqual(['ada-secret']);
    expect((await as('ada', 'GET', `/api/semantic/projects?orgId=${adaOrg.id}`)).body.projects).toHaveLength(1);
    for (const [method, path, body, bytes] of projectRoutes('ada-secret', tokenId)) {
      const answer = await as('ada', method, path, body, bytes);
      // The improvement request imp-1 does not exist: the project was found, the request was not.
      if (path.includes('/improvements/imp-1/')) expect(answer.body.error.message, path).toContain('imp-1');
      else expect(answer.status, `${method} ${path}`).toBeLessThan(300);
    }
    expect((await tokenList()).find((t) => t.id === tokenId)?.state).toBe('revoked');
  });
});

describe('roles on a project within one organization', () => {
  let orgId: string;
  let groupId: string;

  it('Cy, invited with the Reader role on the project, reads it but may not use, change or manage it', async () => {
    orgId = (await as('ada', 'GET', '/api/orgs')).body.organizations[0].id;
    const projectId = (await as('ada', 'POST', '/api/semantic/projects', { slug: 'ada-shared' })).body.id;
    const sources = { models: { 'm.yaml': model('m') }, data: [] };
    await as('ada', 'POST', '/api/semantic/projects/ada-shared/sources', sources);
    expect((await as('cy', 'GET', '/api/orgs')).status).toBe(200);
    const readers = { name: 'Semantic readers', permissions: [], agentRoles: [{ agent: projectId, role: 'reader' }] };
    const group = await as('ada', 'POST', `/api/orgs/${orgId}/groups`, readers);
    expect(group.status).toBe(201);
    groupId = group.body.id;
    const invited = { email: 'cy@example.com', groups: [groupId] };
    const invitation = await as('ada', 'POST', `/api/orgs/${orgId}/invitations`, invited);
    expect(invitation.status).toBe(201);
    const key = String(invitation.body.link).split('/invite/')[1];
    expect((await as('cy', 'POST', `/api/invitations/link/${key}/join`)).status).toBe(200);

    const p = '/api/semantic/projects/ada-shared';
    const reads = [p, `${p}/sources`, `${p}/changes`, `${p}/tokens`, `${p}/calls`, `${p}/calls/stats`];
    reads.push(`${p}/calls/tokens`, `${p}/improvements`, `${p}/improvements/list`);
    for (const path of reads) {
      expect((await as('cy', 'GET', path)).status, path).toBe(200);
    }
    expect((await as('cy', 'POST', `${p}/validate`, { models: {} })).status).toBe(200);
    const seen = (await as('cy', 'GET', '/api/semantic/projects')).body.projects.map((x: { slug: string }) => x.slug);
    expect(seen).toEqual(['ada-shared']);
    const refusals: [Answer, string][] = [
      [await as('cy', 'POST', `${p}/playground-token`), 'User'],
      [await as('cy', 'PATCH', p, { name: 'x' }), 'Maintainer'],
      [await as('cy', 'POST', `${p}/publish`), 'Maintainer'],
      [await as('cy', 'POST', `${p}/tokens`, { name: 'cy', models: ['m'] }), 'Maintainer'],
    ];
    for (const [answer, role] of refusals) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'project_role_required' });
      expect(answer.body.error.message).toContain(`You need the ${role} role on semantic project "ada-shared"`);
    }
  });

  it('creation needs agents:create there, and names the organization when Cy is in several', async () => {
    const ambiguous = await as('cy', 'POST', '/api/semantic/projects', { slug: 'cy-one' });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.code).toBe('ambiguous_organization');
    expect(ambiguous.body.error.message).toContain('"orgId"');
    const refused = await as('cy', 'POST', '/api/semantic/projects', { slug: 'cy-one', orgId });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('permission_required');
    const own = (await as('cy', 'GET', '/api/orgs')).body.organizations.find((o: { id: string }) => o.id !== orgId);
    const created = await as('cy', 'POST', '/api/semantic/projects', { slug: 'cy-one', orgId: own.id });
    expect(created.status).toBe(201);
    expect(created.body.orgId).toBe(own.id);
    expect((await as('ada', 'GET', '/api/semantic/projects/cy-one')).status).toBe(404);

    // The CLI: without --org it says to name one; with --org the project goes there.
    const dir = projectDir([flightsModel]);
    const cli = (args: string[]) =>
      runCairn(api.url, ['--token', tokens.cy!, 'semantic', 'import', dir, '--project', 'cy-cli', ...args],
        { mode: 'sources' });
    const unnamed = cli([]);
    expect(unnamed.status).not.toBe(0);
    expect(unnamed.stderr).toContain('ambiguous_organization');
    expect(unnamed.stderr).toContain('--org');
    const named = cli(['--org', own.id]);
    expect(named.status, named.stderr).toBe(0);
    expect((await as('cy', 'GET', '/api/semantic/projects/cy-cli')).body.orgId).toBe(own.id);
  });

  it('once her group gives Maintainer on the project, Cy edits, publishes and mints tokens', async () => {
    const projectId = (await as('ada', 'GET', '/api/semantic/projects/ada-shared')).body.id;
    const maintainers = { agentRoles: [{ agent: projectId, role: 'maintainer' }] };
    expect((await as('ada', 'PUT', `/api/orgs/${orgId}/groups/${groupId}`, maintainers)).status).toBe(200);
    const p = '/api/semantic/projects/ada-shared';
    expect((await as('cy', 'PATCH', p, { name: 'Shared' })).body.name).toBe('Shared');
    expect((await as('cy', 'POST', `${p}/publish`)).status).toBe(200);
    expect((await as('cy', 'POST', `${p}/tokens`, { name: 'cy', models: ['m'] })).status).toBe(201);
    expect((await as('cy', 'POST', `${p}/playground-token`)).status).toBe(201);
  });
});
