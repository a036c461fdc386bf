/**
 * The test OpenID provider's app clients and the credential service, driven over HTTP the way a product's
 * OAuth sign-in of an organization to a tool collection goes: authorization request with PKCE and state, the
 * provider's login and consent pages, the code exchanged (client_secret_basic) for a JWT access token and a
 * refresh token; the access token calls the credential service's `whoami`; refresh, secret rotation at the
 * provider, revocation, and a client added at runtime.
 *
 * Source: test/helpers/oidc-provider.ts (app clients); test/helpers/credential-service.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredentialService, type CredentialService } from '../helpers/credential-service.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { type Answer, CookieJar, send as sendOver } from '../helpers/provider-browser.ts';

const redirectUri = 'http://127.0.0.1:9/api/oauth2/callback';
const office = { clientId: 'office-app', secret: 'office-secret-1', redirectUris: [redirectUri] };

let op: RunningOidcProvider;
let ca: string;
let service: CredentialService;

beforeAll(async () => {
  op = await startOidcProvider([], 'https://api.cairn.test', {
    https: true, people: [{ login: 'ada', email: 'ada@example.com' }], appClients: [office], appAccessTokenTtlSeconds: 2,
  });
  ca = readFileSync(op.certificateFile!, 'utf8');
  service = await startCredentialService({ jwtIssuer: op.issuer, ca, tokens: { 'org-a-token-0123456789': 'org-a' } });
});
afterAll(async () => {
  await service?.close();
  await op?.stop();
});

/** One HTTPS request to the provider (trusting its certificate), no redirect followed. */
const send = (url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) => sendOver(url, ca, options);

/** GETs `url` with the jar's cookies, following the provider's redirects until a page or a redirect away from it. */
async function browse(jar: CookieJar, url: string, init: { method?: string; body?: string } = {}): Promise<{ url: string; answer: Answer }> {
  let current = url;
  let answer = await send(current, { method: init.method, body: init.body, headers: { ...jar.header(), ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
  for (let hops = 0; ; hops++) {
    jar.take(answer);
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status >= 400 || typeof location !== 'string') return { url: current, answer };
    const next = new URL(location, current).href;
    if (!next.startsWith(op.issuer) || hops > 10) return { url: next, answer };
    current = next;
    answer = await send(current, { headers: jar.header() });
  }
}

/** A product signing an organization in as `client`: authorize (PKCE, state), sign in as `login` if asked, allow, exchange the code. */
async function signIn(client: { clientId: string; secret: string }, jar = new CookieJar(), scope = 'openid') {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(`${op.issuer}/auth`);
  authorize.search = new URLSearchParams({
    client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope, state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  let step = await browse(jar, authorize.href);
  const pages: string[] = [];
  while (step.url.startsWith(`${op.issuer}/interaction/`)) {
    const { body } = step.answer;
    if (body.includes('name="login"')) {
      pages.push('login');
      step = await browse(jar, step.url, { method: 'POST', body: new URLSearchParams({ login: 'ada', password: 'anything' }).toString() });
    } else if (body.includes('name="allow"')) {
      pages.push(body.match(/<h1>([^<]*)<\/h1>/)?.[1] ?? 'consent');
      expect(body).toContain(scope);
      step = await browse(jar, step.url, { method: 'POST', body: 'allow=yes' });
    } else throw new Error(`unexpected interaction page ${step.answer.status}: ${body.slice(0, 300)}`);
  }
  expect(step.url.startsWith(`${redirectUri}?`), `ended at ${step.url}: ${step.answer.body.slice(0, 300)}`).toBe(true);
  const back = new URL(step.url).searchParams;
  expect(back.get('state')).toBe(state);
  const code = back.get('code');
  expect(code, step.url).toBeTruthy();
  const exchange = await send(`${op.issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${client.clientId}:${client.secret}`)}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, code_verifier: verifier }).toString(),
  });
  const tokens = JSON.parse(exchange.body) as { access_token?: string; refresh_token?: string; expires_in?: number; error?: string };
  expect(tokens.error, exchange.body).toBeUndefined();
  return { pages, tokens: tokens as { access_token: string; refresh_token: string; expires_in: number }, jar };
}

async function whoami(token: string): Promise<unknown> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(service.endpoint), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    return (await client.callTool({ name: 'whoami', arguments: {} })).structuredContent;
  } finally {
    await client.close();
  }
}

describe('app clients of the test provider', () => {
  let first: Awaited<ReturnType<typeof signIn>>;

  it('lists the authorization, token and revocation endpoints in its discovery document', async () => {
    const discovery = JSON.parse((await send(`${op.issuer}/.well-known/openid-configuration`)).body) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      authorization_endpoint: `${op.issuer}/auth`, token_endpoint: `${op.issuer}/token`, revocation_endpoint: `${op.issuer}/token/revocation`,
      introspection_endpoint: `${op.issuer}/token/introspection`,
    });
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
  });

  it('runs the code flow with PKCE and state through login and consent to a JWT access token and a refresh token', async () => {
    first = await signIn(office);
    expect(first.pages).toEqual(['login', 'Authorize office-app']);
    expect(first.tokens.refresh_token).toBeTruthy();
    expect(first.tokens.expires_in).toBe(2);
    expect(decodeProtectedHeader(first.tokens.access_token)).toMatchObject({ alg: 'RS256', kid: 'test-key-1', typ: 'at+jwt' });
    const claims = decodeJwt(first.tokens.access_token);
    expect(claims).toMatchObject({ iss: op.issuer, aud: 'https://api.cairn.test', sub: 'ada', client_id: 'office-app' });
    expect(claims.exp! - claims.iat!).toBe(2);
    expect(op.issuedAppTokens()).toEqual([{ clientId: 'office-app', accountId: 'ada', accessToken: first.tokens.access_token }]);
  });

  it('a person who allowed once is not asked again in the same provider session', async () => {
    const again = await signIn(office, first.jar);
    expect(again.pages).toEqual([]);
  });

  it('runs a plain OAuth request (scope api, no openid) through consent to a refresh token and an access token of scope api', async () => {
    const plain = await signIn({ clientId: 'office-app', secret: 'office-secret-1' }, new CookieJar(), 'api');
    expect(plain.pages).toEqual(['login', 'Authorize office-app']);
    expect(decodeJwt(plain.tokens.access_token)).toMatchObject({ sub: 'ada', client_id: 'office-app', aud: 'https://api.cairn.test', scope: 'api' });
    expect(plain.tokens.refresh_token).toBeTruthy();
  });

  it('the credential service answers whoami as office-app:ada for the access token, and 401 for a wrong one', async () => {
    expect(await whoami(first.tokens.access_token)).toEqual({ who: 'office-app:ada' });
    expect(await whoami('org-a-token-0123456789')).toEqual({ who: 'org-a' });
    expect(service.calls.map((c) => c.who)).toEqual(['office-app:ada', 'org-a']);
    await expect(whoami('not-a-known-token')).rejects.toThrow(/invalid_token/);
    const forged = `${first.tokens.access_token.slice(0, -4)}AAAA`;
    await expect(whoami(forged)).rejects.toThrow(/invalid_token/);
    const answer = await fetch(service.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ error: 'invalid_token' });
    expect(service.seen.at(-1)).toEqual({ bearer: '', method: 'tools/list' });
    expect(service.seen.filter((s) => s.bearer === first.tokens.access_token).map((s) => s.method)).toContain('tools/call');
  });

  it('refreshes without rotating the refresh token; the access token expires after the configured 2 s', async () => {
    const refreshed = await op.refreshWith(office, first.tokens.refresh_token);
    expect(refreshed).toMatchObject({ token_type: 'Bearer', expires_in: 2, refresh_token: first.tokens.refresh_token });
    expect(decodeJwt(refreshed.access_token as string)).toMatchObject({ sub: 'ada', client_id: 'office-app' });
    expect(await op.refreshWith(office, first.tokens.refresh_token)).toHaveProperty('access_token');
    // client_secret_post is accepted from a client_secret_basic client too
    const post = await send(`${op.issuer}/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token, client_id: office.clientId, client_secret: office.secret }).toString(),
    });
    expect(JSON.parse(post.body)).toHaveProperty('access_token');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await expect(whoami(first.tokens.access_token)).rejects.toThrow(/invalid_token/);
    expect(await whoami(refreshed.access_token as string).catch(() => 'expired')).toBe('expired');
    expect(op.issuedAppTokens().filter((t) => t.clientId === 'office-app')).toHaveLength(6); // three sign-ins, three refreshes
  });

  it('after the secret is rotated at the provider, the old secret is refused and the new one refreshes', async () => {
    op.setAppClientSecret('office-app', 'office-secret-2');
    expect(await op.refreshWith(office, first.tokens.refresh_token)).toMatchObject({ error: 'invalid_client' });
    const refreshed = await op.refreshWith({ clientId: 'office-app', secret: 'office-secret-2' }, first.tokens.refresh_token);
    expect(refreshed).toHaveProperty('access_token');
    expect(await whoami(refreshed.access_token as string)).toEqual({ who: 'office-app:ada' });
  });

  it('a revoked refresh token no longer refreshes (invalid_grant)', async () => {
    const client = { clientId: 'office-app', secret: 'office-secret-2' };
    const revoked = await send(`${op.issuer}/token/revocation`, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${client.clientId}:${client.secret}`)}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: first.tokens.refresh_token, token_type_hint: 'refresh_token' }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await op.refreshWith(client, first.tokens.refresh_token)).toMatchObject({ error: 'invalid_grant' });
  });

  it('a client added at runtime runs the flow too, and is asked for consent of its own', async () => {
    const unknown = await send(`${op.issuer}/auth?client_id=office-app-2&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(redirectUri)}`);
    expect(unknown.body).toContain('invalid_client');
    op.addAppClient({ clientId: 'office-app-2', secret: 'office-2-secret', redirectUris: [redirectUri] });
    const second = await signIn({ clientId: 'office-app-2', secret: 'office-2-secret' }, first.jar);
    expect(second.pages).toEqual(['Authorize office-app-2']);
    expect(decodeJwt(second.tokens.access_token)).toMatchObject({ sub: 'ada', client_id: 'office-app-2' });
    expect(await whoami(second.tokens.access_token)).toEqual({ who: 'office-app-2:ada' });
    expect(await op.refreshWith({ clientId: 'office-app-2', secret: 'office-2-secret' }, second.tokens.refresh_token)).toHaveProperty('access_token');
    expect(await op.refreshWith(office, second.tokens.refresh_token)).toMatchObject({ error: 'invalid_client' });
    expect(await op.refreshWith({ clientId: 'office-app', secret: 'office-secret-2' }, second.tokens.refresh_token)).toMatchObject({ error: 'invalid_grant' });
    expect(op.issuedAppTokens().filter((t) => t.clientId === 'office-app-2')).toHaveLength(2);
  });
});
