/**
 * Collections with per-organization credentials, end to end: an API and a dispatcher on a real redis-server,
 * members signing in at a local OpenID provider (over https, which also serves the office app's sign-in with
 * consent, refresh and revocation), a local MCP service (test/helpers/credential-service.ts) that says who each
 * call's bearer is, and a scripted model whose agent calls `crm__whoami` and `office__whoami`.
 * - Two organizations store different tokens for the `crm` collection and each agent's calls carry its own (seen at
 *   the service); an organization that has not connected it is not offered it; another organization's member gets
 *   404 naming nothing on every route.
 * - The office collection is signed in to through its OAuth app: Connect (PKCE, state, consent), the callback, the
 *   finish by the member who started it (with the key the callback handed her browser), a tool call carrying the organization's access token, a refresh when it expires, a callback replayed refused; the
 *   app's secret rotated at the provider and on restart keeps the connection working; a new client id asks it to
 *   reconnect (not offered until then); Disconnect revokes at the provider and the collection is no longer offered.
 * Source: issue "Skill registries, and collections with per-organization credentials and OAuth apps" § Done when;
 * docs/decisions.md D22 § 4.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAgentOverApi } from '../helpers/agent-over-api.ts';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startCredentialService, type CredentialService } from '../helpers/credential-service.ts';
import { startDispatcher, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort } from '../helpers/ports.ts';
import { consentAt } from '../helpers/provider-browser.ts';
import { repoRoot, runCairnAsync } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { scriptedModels, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from '../helpers/scripted-model-server.ts';

const DEPLOYMENT_TOKEN = 'deployment-token-0123456789';
const ORG_A_TOKEN = 'org-a-crm-token-0123456789';
const ORG_B_TOKEN = 'org-b-crm-token-0123456789';
const call = (name: string): ScriptedTurn => ({ toolCalls: [{ name, arguments: {} }] });
const wait: ScriptedTurn = { text: 'Done.', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'next?' } }] };
// Each session: one tool call, then a wait (the session awaits input).
const sessions = ['crm__whoami', 'crm__whoami', 'crm__whoami', ...Array(6).fill('office__whoami') as string[]];

let redis: RunningRedis;
let provider: RunningOidcProvider;
let ca: string;
let service: CredentialService;
let model: ScriptedModelServer;
let api: RunningApi;
let dispatcher: RunningDispatcher;
let apiPort: number;
let baseEnv: Record<string, string>;
const tokens: Record<string, string> = {};
const ids = { a: '', b: '', agentA: '', agentB: '' };
let requestIndex = 0;

interface Answer { status: number; body: Record<string, any>; text: string; headers: Headers }

async function as(who: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[who]}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  let parsed: Record<string, any> = {};
  try { parsed = text ? JSON.parse(text) as Record<string, any> : {}; } catch { /* not JSON */ }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** The environment of the API and dispatcher: the office app's client id and secret through their variables. */
function envWith(clientId: string, clientSecret: string): Record<string, string> {
  return { ...baseEnv, PLATFORM_OAUTH_APP_OFFICE_CLIENT_ID: clientId, PLATFORM_OAUTH_APP_OFFICE_CLIENT_SECRET: clientSecret };
}

/** One session of `who`'s agent (its first turn: the scripted tool call, then a wait); what the model was offered and told. */
async function session(who: 'ada' | 'bob'): Promise<{ offered: string[]; told: string }> {
  const agent = who === 'ada' ? ids.agentA : ids.agentB;
  const started = await as(who, 'POST', '/api/sessions', { agent, environment: 'main', workflow: 'ask', message: 'Who am I?' });
  expect(started.status, started.text).toBe(201);
  let status = 'running';
  for (let i = 0; i < 300 && status === 'running'; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    status = (await as(who, 'GET', `/api/sessions/${started.body.session.id}`)).body.session.status;
  }
  expect(status, dispatcher.output().slice(-2000)).toBe('awaiting_input');
  const [first, second] = [model.requests[requestIndex]!, model.requests[requestIndex + 1]!];
  requestIndex += 2;
  const offered = (first.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
  const messages = second.body.messages as { role: string; content: string }[];
  return { offered, told: messages.find((m) => m.role === 'tool')!.content };
}

/** Restarts the API and the dispatcher with `env` (stores kept). */
async function restart(env: Record<string, string>): Promise<void> {
  await dispatcher.stop();
  api = await api.restart(env);
  dispatcher = await startDispatcher(api, redis.url, env);
}

/** Connect as Ada through the office app: the API's authorization URL, the provider's pages, the callback. */
async function connectOffice(): Promise<{ location: string; pages: string[]; callback: string }> {
  const started = await as('ada', 'POST', `/api/orgs/${ids.a}/collections/office/connect`);
  expect(started.status, started.text).toBe(200);
  expect(started.body.authorizeUrl.startsWith(`${provider.issuer}/`)).toBe(true);
  const authorize = new URL(started.body.authorizeUrl).searchParams;
  expect(authorize.get('code_challenge_method')).toBe('S256');
  expect(authorize.get('state')).toMatch(/^[\w-]{22,}$/);
  const { callback, pages } = await consentAt(provider.issuer, ca, started.body.authorizeUrl, 'ada');
  expect(callback.startsWith(`${api.url}/api/oauth2/callback?`), callback).toBe(true);
  const answer = await fetch(callback, { redirect: 'manual' });
  expect(answer.status).toBe(303);
  const location = answer.headers.get('location') ?? '';
  // The Collections page finishes it as Ada, with the key only the browser the callback reached holds.
  const page = new URL(location, api.url);
  expect(page.pathname).toBe(`/members/${ids.a}/collections`);
  const finish = { state: page.searchParams.get('finish'), key: page.searchParams.get('key') };
  hidden('finish', await as('bob', 'POST', `/api/orgs/${ids.a}/collections/office/finish`, finish));
  const finished = await as('ada', 'POST', `/api/orgs/${ids.a}/collections/office/finish`, finish);
  expect(finished.status, finished.text).toBe(200);
  expect(finished.body).toMatchObject({ id: 'office', offered: true, connection: { status: 'connected' } });
  return { location, pages, callback };
}

beforeAll(async () => {
  redis = await startRedis();
  apiPort = await freePort();
  const redirectUri = `http://127.0.0.1:${apiPort}/api/oauth2/callback`;
  provider = await startOidcProvider(threePeople, 'https://api.cairn.test', {
    https: true,
    people: [{ login: 'ada', email: 'ada@example.com' }],
    appClients: [{ clientId: 'office-app', secret: 'office-secret-1', redirectUris: [redirectUri] }],
    appAccessTokenTtlSeconds: 3,
  });
  ca = readFileSync(provider.certificateFile!, 'utf8');
  service = await startCredentialService({
    tokens: { [DEPLOYMENT_TOKEN]: 'deployment', [ORG_A_TOKEN]: 'org-a', [ORG_B_TOKEN]: 'org-b' },
    jwtIssuer: provider.issuer, ca,
  });
  model = await startScriptedModelServer(sessions.flatMap((name) => [call(name), wait]));
  const config = {
    models: scriptedModels(model),
    services: [
      { id: 'crm', endpoint: service.endpoint, token: DEPLOYMENT_TOKEN },
      { id: 'office', endpoint: service.endpoint, token: DEPLOYMENT_TOKEN },
    ],
    oauthApps: [{
      id: 'office', collections: ['office'],
      clientId: '${{PLATFORM_OAUTH_APP_OFFICE_CLIENT_ID}}', clientSecret: '${{PLATFORM_OAUTH_APP_OFFICE_CLIENT_SECRET}}',
      provider: { issuer: provider.issuer, scopes: ['openid', 'api'] },
      reach: { note: 'Reads the documents of the person who connects.', url: 'https://office.example/app', signsIn: 'Administrators' },
    }],
  };
  baseEnv = {
    ...oidcSignInEnv(provider), PLATFORM_CONFIG: JSON.stringify(config), PORT: String(apiPort),
    OAUTH2_REDIRECT_URL: redirectUri, MASTER_KEY: randomBytes(32).toString('base64'),
    NODE_EXTRA_CA_CERTS: provider.certificateFile!,
  };
  const env = envWith('office-app', 'office-secret-1');
  api = await startApi(redis.url, env);
  dispatcher = await startDispatcher(api, redis.url, env);
  Object.assign(tokens, await tokensOf(provider));
  ids.a = (await as('ada', 'POST', '/api/orgs', { name: 'Acme' })).body.id;
  ids.b = (await as('bob', 'POST', '/api/orgs', { name: 'Bobco' })).body.id;
  const dir = join(repoRoot, 'test/fixtures/agents/caller');
  ids.agentA = await installAgentOverApi(api.url, tokens.ada!, ids.a, dir, 'caller');
  ids.agentB = await installAgentOverApi(api.url, tokens.bob!, ids.b, dir, 'caller');
}, 180_000);

afterAll(async () => {
  await dispatcher?.stop();
  await api?.stop();
  await model?.close();
  await service?.close();
  await provider?.stop();
  await redis?.stop();
});

/** Asserts a 404 naming none of Acme's identifiers. */
function hidden(label: string, answer: Answer): void {
  expect(answer.status, `${label}: ${answer.text}`).toBe(404);
  for (const id of [ids.a, ids.agentA]) expect(answer.text, label).not.toContain(id);
}

describe('collections of two organizations', () => {
  it('lists what the deployment offers; another organization\'s member gets 404 naming nothing', async () => {
    const listed = await as('ada', 'GET', `/api/orgs/${ids.a}/collections`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({
      canManage: true,
      collections: [
        // Two organizations: the service's own token serves neither (it belongs to no semantic project).
        { id: 'crm', kind: 'token', connection: null, usesDeploymentToken: false, offered: false },
        {
          id: 'office', kind: 'oauth', connection: null, usesDeploymentToken: false, offered: false,
          app: { id: 'office', collections: ['office'], reach: { note: 'Reads the documents of the person who connects.', url: 'https://office.example/app', signsIn: 'Administrators' } },
        },
      ],
    });
    hidden('list', await as('bob', 'GET', `/api/orgs/${ids.a}/collections`));
    // OAUTH2_REDIRECT_URL is http here: no client metadata document (only an https one has it).
    expect((await fetch(`${api.url}/api/oauth2/client-metadata`)).status).toBe(404);
    hidden('token', await as('bob', 'PUT', `/api/orgs/${ids.a}/collections/crm/token`, { token: ORG_B_TOKEN }));
    hidden('connect', await as('bob', 'POST', `/api/orgs/${ids.a}/collections/office/connect`));
    hidden('disconnect', await as('bob', 'DELETE', `/api/orgs/${ids.a}/collections/crm`));
    // Said at boot: no organization yet, so a single-organization install (after a restart with two: the other line).
    expect(api.output()).toContain('[credentials] single-organization install: the services\' own tokens serve');
  });

  it('carries each organization\'s own token; one that has not connected the collection is not offered it', async () => {
    const unconnected = await session('bob');
    expect(unconnected.offered.filter((n) => n.startsWith('crm__') || n.startsWith('office__'))).toEqual([]);
    expect(unconnected.told).toContain('No tool "crm__whoami" is offered');
    expect(service.calls).toEqual([]);

    const short = await as('ada', 'PUT', `/api/orgs/${ids.a}/collections/crm/token`, { token: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe('invalid_token');
    const oauthByToken = await as('ada', 'PUT', `/api/orgs/${ids.a}/collections/office/token`, { token: ORG_A_TOKEN });
    expect(oauthByToken.status).toBe(409);
    const stored = await as('ada', 'PUT', `/api/orgs/${ids.a}/collections/crm/token`, { token: ORG_A_TOKEN });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toMatchObject({ id: 'crm', offered: true, connection: { status: 'connected', connectedBy: 'Ada' } });
    expect(stored.text).not.toContain(ORG_A_TOKEN);
    // Bob stores his through the CLI (the token on standard input, never on the command line).
    const cli = await runCairnAsync(api.url, ['--token', tokens.bob!, 'collection', 'set-token', 'crm', '--org', ids.b], { stdin: ORG_B_TOKEN });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('crm: connected with your organization\'s token');
    const listed = await runCairnAsync(api.url, ['--token', tokens.bob!, 'collection', 'list', '--org', ids.b]);
    expect(listed.stdout).toMatch(/^crm {2}token {2}connected by Bob on \d{4}-\d\d-\d\d$/m);
    expect(listed.stdout).toContain('office  oauth (app office)  not connected  (not offered to agents)');

    const mine = await session('ada');
    expect(mine.offered).toContain('crm__whoami');
    expect(mine.offered).not.toContain('office__whoami');
    expect(JSON.parse(mine.told)).toEqual({ who: 'org-a' });
    const theirs = await session('bob');
    expect(JSON.parse(theirs.told)).toEqual({ who: 'org-b' });
    expect(service.calls.map((c) => c.who)).toEqual(['org-a', 'org-b']);
    const lines = api.output() + dispatcher.output();
    expect(lines).toContain(`[credentials] connected collection crm for organization ${ids.a} by Ada (token)`);
    for (const secret of [ORG_A_TOKEN, ORG_B_TOKEN]) expect(lines).not.toContain(secret);
  }, 60_000);
});

describe('an OAuth collection', () => {
  let firstCallback = '';
  let firstLocation = '';

  it('connects through the app (PKCE, state, consent), and its calls carry the organization\'s access token', async () => {
    const connected = await connectOffice();
    firstCallback = connected.callback;
    firstLocation = connected.location;
    expect(connected.pages).toEqual(['login', 'Authorize office-app']);
    expect(connected.location).toMatch(new RegExp(`^/members/${ids.a}/collections\\?finish=[\\w-]+&key=[0-9a-f]{64}&collection=office$`));
    const listed = await as('ada', 'GET', `/api/orgs/${ids.a}/collections`);
    expect(listed.body.collections[1]).toMatchObject({ id: 'office', offered: true, connection: { status: 'connected' } });
    const first = await session('ada');
    expect(first.offered).toContain('office__whoami');
    expect(JSON.parse(first.told)).toEqual({ who: 'office-app:ada' });
    expect(api.output()).toContain(`[credentials] connected collection office for organization ${ids.a} by Ada (oauth app office)`);
  }, 60_000);

  it('refuses a replayed callback, and refreshes the access token once it expires', async () => {
    const replay = await fetch(firstCallback, { redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/members?connect_error=oauth_connect_unknown');
    // A finish replayed is refused too.
    const used = new URL(firstLocation, api.url).searchParams;
    const again404 = await as('ada', 'POST', `/api/orgs/${ids.a}/collections/office/finish`, { state: used.get('finish'), key: used.get('key') });
    expect(again404.status).toBe(404);
    expect(again404.body.error.code).toBe('oauth_connect_unknown');
    const bearersBefore = new Set(service.seen.filter((s) => s.method === 'tools/call').map((s) => s.bearer));
    await new Promise((r) => setTimeout(r, 3_500));
    const again = await session('ada');
    expect(JSON.parse(again.told)).toEqual({ who: 'office-app:ada' });
    const last = service.seen.filter((s) => s.method === 'tools/call').at(-1)!.bearer;
    expect(bearersBefore.has(last)).toBe(false);
    expect(dispatcher.output()).toContain(`[credentials] refreshed collection office for organization ${ids.a} by the platform`);
  }, 60_000);

  it('keeps working after the app\'s secret is rotated at the provider and on restart', async () => {
    provider.setAppClientSecret('office-app', 'office-secret-2');
    await restart(envWith('office-app', 'office-secret-2'));
    // Ada's and Bob's personal organizations and the two they made.
    expect(api.output()).toMatch(/\[credentials\] 4 organizations: the services' own tokens serve no organization/);
    await new Promise((r) => setTimeout(r, 3_500));
    const after = await session('ada');
    expect(JSON.parse(after.told)).toEqual({ who: 'office-app:ada' });
  }, 90_000);

  it('asks to reconnect when the app\'s client id changes, and is not offered until then', async () => {
    const redirectUri = `http://127.0.0.1:${apiPort}/api/oauth2/callback`;
    provider.addAppClient({ clientId: 'office-app-2', secret: 'office-2-secret', redirectUris: [redirectUri] });
    await restart(envWith('office-app-2', 'office-2-secret'));
    expect(api.output()).toContain(`[credentials] reconnect asked collection office for organization ${ids.a} by the platform`);
    const listed = await as('ada', 'GET', `/api/orgs/${ids.a}/collections`);
    expect(listed.body.collections[1]).toMatchObject({
      offered: false, connection: { status: 'reconnect', reconnectReason: expect.stringContaining('client id changed') },
    });
    const refused = await session('ada');
    expect(refused.offered).not.toContain('office__whoami');
    expect(refused.told).toContain('No tool "office__whoami" is offered');
    const reconnected = await connectOffice();
    expect(reconnected.pages).toContain('Authorize office-app-2');
    const back = await session('ada');
    expect(JSON.parse(back.told)).toEqual({ who: 'office-app-2:ada' });
  }, 120_000);

  it('disconnects: revoked at the provider, and no longer offered', async () => {
    hidden('disconnect', await as('bob', 'DELETE', `/api/orgs/${ids.a}/collections/office`));
    const gone = await as('ada', 'DELETE', `/api/orgs/${ids.a}/collections/office`);
    expect(gone.status, gone.text).toBe(204);
    expect(api.output()).toContain(`[credentials] disconnected collection office for organization ${ids.a} by Ada (revoked at the provider of app office)`);
    expect((await as('ada', 'DELETE', `/api/orgs/${ids.a}/collections/office`)).status).toBe(404);
    const after = await session('ada');
    expect(after.offered).not.toContain('office__whoami');
    expect(after.told).toContain('No tool "office__whoami" is offered');
  }, 60_000);
});
