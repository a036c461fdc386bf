/**
 * The API request rules on the real API app (bins/api/app.ts, booted as bins/api/main.ts boots it, by
 * test/fixtures/api-rules-server.ts) on Bun over a real socket, in each sign-in mode: own-pages rule,
 * JSON-only bodies, body limits, sign-in, public routes, access-log redaction and client addresses through
 * trusted proxies. Routes the API does not have yet (webhooks, callbacks, AG-UI, MCP endpoints,
 * invitations) are reached anyway: the rules run before routing, so their answer (401, 403, 413, or the
 * router's 404) shows what the rules did. The per-user ceiling is tested through the proxy in
 * test/e2e/user-ceiling.test.ts.
 *
 * Source: spec/platform-service.md § Authentication; § Events (Access log); § Errors; § Limits.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlbKeyHost, testAlbArn, type AlbKeyHost } from '../helpers/alb-keys.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

const root = resolve(import.meta.dirname, '../..');
const audience = 'https://api.cairn.test';
const appOrigin = 'https://app.cairn.test';
const brandingConfig = JSON.stringify({ branding: { title: 'Acme Agents', colours: { primary: '#123456' } } });

/** The real API app on Bun. */
interface RulesServer {
  url: string;
  /** Every stdout line so far. */
  output: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Waits until at least `count` access-log lines match `match`; returns the matching lines. */
  accessLines(count: number, match: (line: string) => boolean): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts the API app with `env` (plus stores in a fresh directory, development mode). */
async function startRulesServer(env: Record<string, string>, albKeyUrlBase?: string): Promise<RulesServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-api-rules-'));
  const stores = { NODE_ENV: 'development', DOCDB_URI: `sqlite:${dir}/docdb.sqlite`, OBJSTORE_ENDPOINT: `file://${dir}/objects`, OBJSTORE_BUCKET: 'cairn', PLATFORM_SCRATCH_DIR: join(dir, 'scratch'), QUEUE_URL: redis.url };
  const config = { env: { ...stores, APP_BASE_URL: appOrigin, PLATFORM_CONFIG: brandingConfig, ...env }, albKeyUrlBase };
  const child = spawn(join(root, 'node_modules/.bin/bun'), [join(root, 'test/fixtures/api-rules-server.ts'), JSON.stringify(config)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let errors = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop() ?? '';
    output.push(...parts);
  });
  child.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
  const until = async <T>(probe: () => T | undefined, what: string): Promise<T> => {
    for (let i = 0; i < 800; i += 1) {
      const value = probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${what} did not happen. stderr: ${errors}`);
  };
  const port = await until(() => output.find((l) => l.startsWith('LISTENING '))?.split(' ')[1], 'the API app listening');
  const url = `http://127.0.0.1:${port}`;
  const access = (match: (line: string) => boolean) => output.filter((l) => l.startsWith('ACCESS ') && match(l.slice(7))).map((l) => l.slice(7));
  return {
    url, output,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    accessLines: (count, match) => until(() => { const lines = access(match); return lines.length >= count ? lines : undefined; }, `${count} access-log lines`),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

let redis: RunningRedis;
let op: RunningOidcProvider;
let alb: AlbKeyHost;
let oidcApi: RulesServer;
let devApi: RulesServer;
let albApi: RulesServer;
let ada: string;

beforeAll(async () => {
  [redis, op, alb] = await Promise.all([
    startRedis(),
    startOidcProvider([
      { clientId: 'web', secret: 'web-secret-0123456789', email: 'ada@example.com', emailVerified: true },
      { clientId: 'unverified', secret: 'unverified-secret-0123456789', email: 'eve@example.com', emailVerified: false },
    ], audience),
    startAlbKeyHost(),
  ]);
  [oidcApi, devApi, albApi] = await Promise.all([
    startRulesServer({ PLATFORM_SIGN_IN: 'oidc', PLATFORM_OIDC_ISSUER: op.issuer, PLATFORM_OIDC_CLIENT_ID: 'web', PLATFORM_OIDC_AUDIENCE: audience, ACCESS_LOG: 'all' }),
    startRulesServer({ PLATFORM_SIGN_IN: 'dev-user', PLATFORM_TRUSTED_PROXIES: '127.0.0.1,::1', ACCESS_LOG: 'errors' }),
    startRulesServer({
      PLATFORM_SIGN_IN: 'cloud-alb', PLATFORM_CLOUD_ALB_ARN: testAlbArn, PLATFORM_CLOUD_ALB_SIGN_OUT_URL: 'https://idp.test/logout', ACCESS_LOG: 'off',
    }, alb.keyUrlBase),
  ]);
  ada = await op.clientCredentialsToken('web');
  expect((await devApi.fetch('/api/semantic/projects', { method: 'POST', body: JSON.stringify({ slug: 'uploads' }), headers: jsonHeaders })).status).toBe(201);
});
afterAll(async () => {
  await Promise.all([oidcApi?.stop(), devApi?.stop(), albApi?.stop()]);
  await Promise.all([op?.stop(), alb?.stop(), redis?.stop()]);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonHeaders = { 'content-type': 'application/json' };
const projectSlugs = async (api: RulesServer, headers: Record<string, string>) =>
  ((await (await api.fetch('/api/semantic/projects', { headers })).json()) as { projects: Array<{ slug: string }> }).projects.map((p) => p.slug);

describe('own-pages rule (403 before anything happens)', () => {
  it('refuses a state-changing request from another site before the route runs, signed in or not', async () => {
    const body = JSON.stringify({ slug: 'from-evil' });
    const pages: Record<string, string>[] = [{ origin: 'https://evil.test' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }, { origin: 'https://app.cairn.test.evil.test' }];
    for (const headers of pages) {
      const response = await oidcApi.fetch('/api/semantic/projects', { method: 'POST', body, headers: { ...jsonHeaders, ...bearer(ada), ...headers } });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'cross_site_request' } });
    }
    const unsigned = await oidcApi.fetch('/api/semantic/projects', { method: 'POST', body, headers: { ...jsonHeaders, origin: 'https://evil.test' } });
    expect(unsigned.status).toBe(403);
    expect(await projectSlugs(oidcApi, bearer(ada))).not.toContain('from-evil');
  });

  it('lets the platform\'s own origins, the request\'s own host and non-browser clients through', async () => {
    const own: Record<string, string>[] = [{ origin: appOrigin, 'sec-fetch-site': 'cross-site' }, { origin: oidcApi.url, 'sec-fetch-site': 'same-origin' }, {}];
    for (const [i, headers] of own.entries()) {
      const response = await oidcApi.fetch('/api/semantic/projects', { method: 'POST', body: JSON.stringify({ slug: `own-${i}` }), headers: { ...jsonHeaders, ...bearer(ada), ...headers } });
      expect(response.status).toBe(201);
    }
    expect(await projectSlugs(oidcApi, bearer(ada))).toEqual(expect.arrayContaining(['own-0', 'own-1', 'own-2']));
  });

  it('leaves endpoints that check their own callers to them (a webhook from a page of another site reaches routing)', async () => {
    const response = await oidcApi.fetch('/api/webhooks/whk_cross', { method: 'POST', body: '{}', headers: { ...jsonHeaders, origin: 'https://evil.test' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('bodies', () => {
  it('a JSON route refuses a form body with 415 and malformed JSON with invalid_json', async () => {
    const form = await devApi.fetch('/api/semantic/projects', { method: 'POST', body: 'slug=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    const malformed = await devApi.fetch('/api/semantic/projects', { method: 'POST', body: '{bad', headers: jsonHeaders });
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });
    expect(await projectSlugs(devApi, {})).toEqual(['uploads']);
  });

  it('answers 413 over 1 MiB of JSON, 20 MiB of upload and 256 KiB of webhook, and reads bodies under them', async () => {
    const json = (bytes: number) => JSON.stringify({ slug: 'big', name: 'x'.repeat(bytes) });
    const overJson = await devApi.fetch('/api/semantic/projects', { method: 'POST', body: json(1024 * 1024), headers: jsonHeaders });
    expect(overJson.status).toBe(413);
    const underJson = await devApi.fetch('/api/semantic/projects', { method: 'POST', body: json(1000 * 1024), headers: jsonHeaders });
    expect(underJson.status).toBe(400); // read and parsed: the name is longer than the schema allows
    expect(await underJson.json()).not.toMatchObject({ error: { code: 'payload_too_large' } });
    const upload = (bytes: number) => devApi.fetch('/api/semantic/projects/uploads/blobs/data.csv', { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
    const over = await upload(20 * 1024 * 1024 + 1);
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: 'payload_too_large', message: 'The body is larger than 20 MiB.' } });
    expect((await upload(2 * 1024 * 1024)).status).toBe(201);
    const hook = (bytes: number) => devApi.fetch('/api/webhooks/whk_size', { method: 'POST', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
    expect((await hook(256 * 1024 + 1)).status).toBe(413);
    expect((await hook(256 * 1024)).status).toBe(404);
  });

  it('stops a JSON body sent without a length at 1 MiB', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await devApi.fetch('/api/semantic/projects', { method: 'POST', body, headers: jsonHeaders, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
  });
});

describe('sign-in', () => {
  it('oidc: 401 with a Bearer challenge without a principal or with a bad token; the signed-in person otherwise', async () => {
    const none = await oidcApi.fetch('/api/semantic/projects');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await oidcApi.fetch('/api/semantic/projects', { headers: bearer(`${ada.slice(0, -4)}AAAA`) })).status).toBe(401);
    expect((await oidcApi.fetch('/api/invitations/link/inv_x')).status).toBe(401);
    expect((await oidcApi.fetch('/api/semantic/projects', { headers: bearer(ada) })).status).toBe(200);
  });

  it('oidc: refuses an unverified email with 403 email_unverified', async () => {
    const response = await oidcApi.fetch('/api/semantic/projects', { headers: bearer(await op.clientCredentialsToken('unverified')) });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'email_unverified', message: expect.stringMatching(/Verify your email address eve@example\.com/) } });
  });

  it('reaches every public route without sign-in (routes the API does not have yet reach routing: 404, not 401)', async () => {
    const get = async (path: string, init?: RequestInit) => (await oidcApi.fetch(path, { redirect: 'manual', ...init })).status;
    expect(await get('/api/health')).toBe(200);
    expect(await get('/api/health/ready')).toBe(200);
    expect(await get('/api/branding')).toBe(200);
    expect(await get('/api/sign-out')).toBe(200);
    expect(await get('/api/sign-out', { method: 'POST' })).toBe(200);
    expect(await get('/api/webhooks/whk_1', { method: 'POST', body: 'x' })).toBe(404);
    expect(await get('/api/callbacks/cb_1')).toBe(404);
    // The OAuth callback answers only a redirect (an unknown state: back to /members with the error), no sign-in asked;
    // the client metadata document exists only for an https OAUTH2_REDIRECT_URL (404 here, not 401).
    expect(await get('/api/oauth2/callback?code=c&state=s')).toBe(303);
    expect(await get('/api/oauth2/client-metadata')).toBe(404);
    expect(await get('/api/mcp/mcp_1/.well-known/oauth-protected-resource')).toBe(404);
    expect(await get('/api/agui/ag_1', { method: 'POST', body: '{}', headers: jsonHeaders })).toBe(404);
    expect(await get('/api/mcp/mcp_1', { method: 'POST', body: '{}', headers: { ...jsonHeaders, ...bearer('cairn_ep_not-a-jwt') } })).toBe(404);
    const settings = await oidcApi.fetch('/api/sign-in-settings');
    expect(await settings.json()).toEqual({ mode: 'oidc', issuer: op.issuer, clientId: 'web', audience, signOutUrl: `${op.issuer}/session/end` });
  });

  it('dev-user: every request is the fixed local user', async () => {
    expect((await devApi.fetch('/api/semantic/projects')).status).toBe(200);
    expect(await (await devApi.fetch('/api/sign-in-settings')).json()).toEqual({ mode: 'dev-user' });
    expect(await (await devApi.fetch('/api/sign-out', { method: 'POST' })).json()).toEqual({ signOutUrl: null });
    expect(await (await devApi.fetch('/api/branding')).json()).toEqual({ title: 'Acme Agents', colors: { primary: '#123456' }, poweredBy: true });
  });

  it('cloud-alb: verifies the signed identity header; 401 without it or from another load balancer', async () => {
    const header = (token: string) => ({ 'x-lb-oidc-data': token });
    expect((await albApi.fetch('/api/semantic/projects', { headers: header(await alb.sign()) })).status).toBe(200);
    expect((await albApi.fetch('/api/semantic/projects')).status).toBe(401);
    expect((await albApi.fetch('/api/semantic/projects', { headers: header(await alb.sign({ signer: testAlbArn.replace('cairn-test', 'other') })) })).status).toBe(401);
  });

  it('cloud-alb: sign-out answers where signing out ends and expires the session cookie shards', async () => {
    const response = await albApi.fetch('/api/sign-out', { method: 'POST' });
    expect(await response.json()).toEqual({ signOutUrl: 'https://idp.test/logout' });
    const cookies = response.headers.getSetCookie();
    expect(cookies.map((c) => c.split('=')[0])).toEqual([0, 1, 2, 3].map((n) => `LBAuthSessionCookie-${n}`));
    for (const cookie of cookies) expect(cookie).toMatch(/Max-Age=0/);
    expect(await (await albApi.fetch('/api/sign-in-settings')).json()).toEqual({ mode: 'cloud-alb', signOutUrl: 'https://idp.test/logout' });
  });
});

describe('access log and client addresses', () => {
  it('redacts every token path, its query values, a Referer naming one, and the oauth2 callback query', async () => {
    const secrets = [
      'whk_S3CRET', 'cb_S3CRET', 'ag_S3CRET', 'mcp_S3CRET', 'inv_S3CRET', 'code_S3CRET', 'ref_S3CRET', 'tok_S3CRET',
    ];
    await oidcApi.fetch('/api/webhooks/whk_S3CRET?access_token=tok_S3CRET&source=crm', { method: 'POST', body: '{}' });
    await oidcApi.fetch('/api/callbacks/cb_S3CRET');
    await oidcApi.fetch('/api/agui/ag_S3CRET', { method: 'POST', body: '{}', headers: jsonHeaders });
    await oidcApi.fetch('/api/mcp/mcp_S3CRET/.well-known/oauth-protected-resource');
    await oidcApi.fetch('/api/invitations/link/inv_S3CRET', { headers: { referer: `${appOrigin}/invite/ref_S3CRET` } });
    await oidcApi.fetch('/api/oauth2/callback?code=code_S3CRET&state=st', { redirect: 'manual' });
    const lines = await oidcApi.accessLines(6, (line) => /S3CRET|redacted/.test(line));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringContaining('"POST /api/webhooks/[redacted]?access_token=[redacted]&source=[redacted]" 404'),
      expect.stringContaining('"GET /api/callbacks/[redacted]" 404'),
      expect.stringContaining('"POST /api/agui/[redacted]" 404'),
      expect.stringContaining('"GET /api/mcp/[redacted]/.well-known/oauth-protected-resource" 404'),
      expect.stringMatching(/"GET \/api\/invitations\/link\/\[redacted\]" 401 \d+ms referer="https:\/\/app\.cairn\.test\/invite\/\[redacted\]"$/),
      expect.stringContaining('"GET /api/oauth2/callback?[redacted]" 303'),
    ]));
    for (const secret of secrets) expect(oidcApi.output.join('\n')).not.toContain(secret);
  });

  it('ACCESS_LOG=errors keeps only responses that are not 2xx or 3xx', async () => {
    await devApi.fetch('/api/health');
    await devApi.fetch('/api/no-such-route');
    const lines = await devApi.accessLines(1, (line) => line.includes('/api/no-such-route'));
    expect(lines[0]).toMatch(/"GET \/api\/no-such-route" 404/);
    expect(devApi.output.some((line) => line.includes('"GET /api/health"'))).toBe(false);
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const spoofed = { 'x-forwarded-for': '198.51.100.7' };
    await devApi.fetch('/api/no-such-route-xff', { headers: spoofed });
    expect((await devApi.accessLines(1, (line) => line.includes('/api/no-such-route-xff'))).at(-1)).toMatch(/^198\.51\.100\.7 "GET \/api\/no-such-route-xff" 404/);
    await oidcApi.fetch('/api/semantic/projects', { headers: { ...spoofed, ...bearer(ada) } });
    const lines = await oidcApi.accessLines(1, (line) => line.includes('"GET /api/semantic/projects" 200'));
    expect(lines.at(-1)).toMatch(/^127\.0\.0\.1 "GET \/api\/semantic\/projects" 200/);
  });
});
