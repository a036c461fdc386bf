/**
 * The API request rules on Bun over a real socket (test/fixtures/api-rules-server.ts), in each sign-in mode:
 * own-pages rule, JSON-only bodies, body limits, sign-in, public routes, the per-user ceiling, access-log
 * redaction and client addresses through trusted proxies.
 *
 * Source: ../shared/spec/platform-service.md § Authentication; § Events (Access log); § Errors; § Limits.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlbKeyHost, testAlbArn, type AlbKeyHost } from '../helpers/alb-keys.ts';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';

const root = resolve(import.meta.dirname, '../..');

/** The fixture API on Bun. */
interface RulesServer {
  url: string;
  /** Every stdout line so far. */
  output: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** How many times the handler `name` has run. */
  ran(name: string): number;
  /** Waits until at least `count` access-log lines match `match`; returns the matching lines. */
  accessLines(count: number, match: (line: string) => boolean): Promise<string[]>;
  stop(): Promise<void>;
}

async function startRulesServer(config: Record<string, unknown>): Promise<RulesServer> {
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
    for (let i = 0; i < 200; i += 1) {
      const value = probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${what} did not happen. stderr: ${errors}`);
  };
  const port = await until(() => output.find((l) => l.startsWith('LISTENING '))?.split(' ')[1], 'the fixture API listening');
  const url = `http://127.0.0.1:${port}`;
  const access = (match: (line: string) => boolean) => output.filter((l) => l.startsWith('ACCESS ') && match(l.slice(7))).map((l) => l.slice(7));
  return {
    url, output,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    ran: (name) => output.filter((l) => l === `RAN ${name}`).length,
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

const audience = 'https://api.cairn.test';
const appOrigin = 'https://app.cairn.test';
let op: RunningOidcProvider;
let alb: AlbKeyHost;
let oidcApi: RulesServer;
let devApi: RulesServer;
let albApi: RulesServer;
let ada: string;

beforeAll(async () => {
  [op, alb] = await Promise.all([
    startOidcProvider([
      { clientId: 'web', secret: 'web-secret-0123456789', email: 'ada@example.com', emailVerified: true },
      { clientId: 'member-2', secret: 'member-2-secret-0123456789', email: 'bob@example.com', emailVerified: true },
      { clientId: 'unverified', secret: 'unverified-secret-0123456789', email: 'eve@example.com', emailVerified: false },
    ], audience),
    startAlbKeyHost(),
  ]);
  const common = { allowedOrigins: [appOrigin], userRatePerMinute: 3 };
  [oidcApi, devApi, albApi] = await Promise.all([
    startRulesServer({ ...common, signIn: { mode: 'oidc', issuer: op.issuer, clientId: 'web', audience }, trustedProxies: [], accessLog: 'all' }),
    startRulesServer({ ...common, signIn: { mode: 'dev-user' }, trustedProxies: ['127.0.0.1', '::1'], accessLog: 'errors' }),
    startRulesServer({
      ...common, signIn: { mode: 'cloud-alb', albArn: testAlbArn, albRegion: 'eu-central-1', signOutUrl: 'https://idp.test/logout', sessionCookie: 'LBAuthSessionCookie' },
      albKeyUrlBase: alb.keyUrlBase, trustedProxies: [], accessLog: 'off',
    }),
  ]);
  ada = await op.clientCredentialsToken('web');
});
afterAll(async () => {
  await Promise.all([oidcApi?.stop(), devApi?.stop(), albApi?.stop()]);
  await Promise.all([op?.stop(), alb?.stop()]);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonHeaders = { 'content-type': 'application/json' };

describe('own-pages rule (403 before anything happens)', () => {
  it('refuses a state-changing request from another site before the handler runs, signed in or not', async () => {
    const ran = oidcApi.ran('things');
    const body = JSON.stringify({ name: 'x' });
    const pages: Record<string, string>[] = [{ origin: 'https://evil.test' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }, { origin: 'https://app.cairn.test.evil.test' }];
    for (const headers of pages) {
      const response = await oidcApi.fetch('/api/things', { method: 'POST', body, headers: { ...jsonHeaders, ...bearer(ada), ...headers } });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'cross_site_request' } });
    }
    const unsigned = await oidcApi.fetch('/api/things', { method: 'POST', body, headers: { ...jsonHeaders, origin: 'https://evil.test' } });
    expect(unsigned.status).toBe(403);
    expect(oidcApi.ran('things')).toBe(ran);
  });

  it('lets the platform\'s own origins, the request\'s own host and non-browser clients through', async () => {
    const body = JSON.stringify({ name: 'x' });
    const own: Record<string, string>[] = [{ origin: appOrigin, 'sec-fetch-site': 'cross-site' }, { origin: oidcApi.url, 'sec-fetch-site': 'same-origin' }, {}];
    for (const headers of own) {
      const response = await oidcApi.fetch('/api/things', { method: 'POST', body, headers: { ...jsonHeaders, ...bearer(ada), ...headers } });
      expect(response.status).toBe(201);
    }
  });

  it('leaves endpoints that check their own callers to them (webhook from a page of another site)', async () => {
    const response = await oidcApi.fetch('/api/webhooks/whk_cross', { method: 'POST', body: '{}', headers: { ...jsonHeaders, origin: 'https://evil.test' } });
    expect(response.status).toBe(202);
  });
});

describe('bodies', () => {
  it('a JSON route refuses a form body with 415 (through readJson and through the jsonOnly hook)', async () => {
    const ran = devApi.ran('auto-json');
    const form = { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const viaHelper = await devApi.fetch('/api/things', form);
    expect(viaHelper.status).toBe(415);
    expect(await viaHelper.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    expect((await devApi.fetch('/api/auto-json', form)).status).toBe(415);
    expect(devApi.ran('auto-json')).toBe(ran);
    expect((await devApi.fetch('/api/auto-json', { method: 'POST', body: '{"a":1}', headers: jsonHeaders })).status).toBe(200);
    const malformed = await devApi.fetch('/api/auto-json', { method: 'POST', body: '{bad', headers: jsonHeaders });
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });

  it('answers 413 over 1 MiB of JSON, 20 MiB of upload and 256 KiB of webhook, and takes bodies under them', async () => {
    const ran = devApi.ran('uploads');
    const json = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });
    expect((await devApi.fetch('/api/things', { method: 'POST', body: json(1024 * 1024), headers: jsonHeaders })).status).toBe(413);
    expect((await devApi.fetch('/api/things', { method: 'POST', body: json(1000 * 1024), headers: jsonHeaders })).status).toBe(201);
    const upload = (bytes: number) => devApi.fetch('/api/uploads', { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
    const over = await upload(20 * 1024 * 1024 + 1);
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: 'payload_too_large', message: 'The body is larger than 20 MiB.' } });
    expect(devApi.ran('uploads')).toBe(ran);
    expect((await upload(2 * 1024 * 1024)).status).toBe(201);
    const hook = (bytes: number) => devApi.fetch('/api/webhooks/whk_size', { method: 'POST', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
    expect((await hook(256 * 1024 + 1)).status).toBe(413);
    expect((await hook(256 * 1024)).status).toBe(202);
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
    const response = await devApi.fetch('/api/things', { method: 'POST', body, headers: jsonHeaders, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
  });
});

describe('sign-in', () => {
  it('oidc: 401 with a Bearer challenge without a principal or with a bad token; the verified person otherwise', async () => {
    const none = await oidcApi.fetch('/api/whoami');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await oidcApi.fetch('/api/whoami', { headers: bearer(`${ada.slice(0, -4)}AAAA`) })).status).toBe(401);
    expect((await oidcApi.fetch('/api/invitations/link/inv_x')).status).toBe(401);
    const me = await oidcApi.fetch('/api/whoami', { headers: bearer(ada) });
    expect(await me.json()).toMatchObject({ principal: { id: 'web', email: 'ada@example.com', emailVerified: true } });
  });

  it('oidc: refuses an unverified email with 403 email_unverified', async () => {
    const response = await oidcApi.fetch('/api/whoami', { headers: bearer(await op.clientCredentialsToken('unverified')) });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'email_unverified', message: expect.stringMatching(/Verify your email address eve@example\.com/) } });
  });

  it('reaches every public route without sign-in', async () => {
    const get = async (path: string, init?: RequestInit) => (await oidcApi.fetch(path, { redirect: 'manual', ...init })).status;
    expect(await get('/api/health')).toBe(200);
    expect(await get('/api/health/ready')).toBe(404);
    expect(await get('/api/branding')).toBe(200);
    expect(await get('/api/sign-out')).toBe(200);
    expect(await get('/api/sign-out', { method: 'POST' })).toBe(200);
    expect(await get('/api/webhooks/whk_1', { method: 'POST', body: 'x' })).toBe(202);
    expect(await get('/api/callbacks/cb_1')).toBe(200);
    expect(await get('/api/oauth2/callback?code=c&state=s')).toBe(302);
    expect(await get('/api/mcp/mcp_1/.well-known/oauth-protected-resource')).toBe(200);
    const settings = await oidcApi.fetch('/api/sign-in-settings');
    expect(await settings.json()).toEqual({ mode: 'oidc', issuer: op.issuer, clientId: 'web', audience, signOutUrl: `${op.issuer}/session/end` });
  });

  it('AG-UI and MCP endpoints take a member\'s own sign-in when present and admit callers without one', async () => {
    const anonymous = await oidcApi.fetch('/api/agui/ag_1', { method: 'POST', body: '{}', headers: jsonHeaders });
    expect(await anonymous.json()).toEqual({ principal: null });
    const member = await oidcApi.fetch('/api/mcp/mcp_1', { method: 'POST', body: '{}', headers: { ...jsonHeaders, ...bearer(ada) } });
    expect(await member.json()).toMatchObject({ principal: { id: 'web' } });
    const endpointToken = await oidcApi.fetch('/api/mcp/mcp_1', { method: 'POST', body: '{}', headers: { ...jsonHeaders, ...bearer('cairn_ep_not-a-jwt') } });
    expect(await endpointToken.json()).toEqual({ principal: null });
  });

  it('dev-user: every request is the fixed local user', async () => {
    expect(await (await devApi.fetch('/api/whoami')).json()).toMatchObject({ principal: { id: 'dev-user', email: 'dev@localhost', emailVerified: true } });
    expect(await (await devApi.fetch('/api/sign-in-settings')).json()).toEqual({ mode: 'dev-user' });
    expect(await (await devApi.fetch('/api/sign-out', { method: 'POST' })).json()).toEqual({ signOutUrl: null });
    expect(await (await devApi.fetch('/api/branding')).json()).toEqual({ title: 'Acme Agents', colors: { primary: '#123456' }, poweredBy: true });
  });

  it('cloud-alb: verifies the signed identity header; 401 without it or from another load balancer', async () => {
    const header = (token: string) => ({ 'x-lb-oidc-data': token });
    const me = await albApi.fetch('/api/whoami', { headers: header(await alb.sign()) });
    expect(await me.json()).toMatchObject({ principal: { id: 'user-1', email: 'ada@example.com', emailVerified: true } });
    expect((await albApi.fetch('/api/whoami')).status).toBe(401);
    expect((await albApi.fetch('/api/whoami', { headers: header(await alb.sign({ signer: testAlbArn.replace('cairn-test', 'other') })) })).status).toBe(401);
    const own = await albApi.fetch('/api/agui/ag_1', { method: 'POST', body: '{}', headers: { ...jsonHeaders, ...header(await alb.sign()), origin: albApi.url } });
    expect(await own.json()).toMatchObject({ principal: { id: 'user-1' } });
    const foreignPage = await albApi.fetch('/api/agui/ag_1', { method: 'POST', body: '{}', headers: { ...jsonHeaders, ...header(await alb.sign()), origin: 'https://evil.test' } });
    expect(await foreignPage.json()).toEqual({ principal: null });
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

describe('per-user ceiling', () => {
  it('answers 429 with Retry-After once one person exceeds PLATFORM_USER_RATE_PER_MINUTE; others keep going', async () => {
    const start = (token: string) => oidcApi.fetch('/api/turns', { method: 'POST', headers: bearer(token) });
    for (let i = 0; i < 3; i += 1) expect((await start(ada)).status).toBe(202);
    const refused = await start(ada);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect((await start(await op.clientCredentialsToken('member-2'))).status).toBe(202);
  });
});

describe('access log and client addresses', () => {
  it('redacts every token path, a Referer naming one, and the oauth2 callback query', async () => {
    const secrets = ['whk_S3CRET', 'cb_S3CRET', 'ag_S3CRET', 'mcp_S3CRET', 'inv_S3CRET', 'code_S3CRET', 'ref_S3CRET'];
    await oidcApi.fetch('/api/webhooks/whk_S3CRET?source=crm', { method: 'POST', body: '{}' });
    await oidcApi.fetch('/api/callbacks/cb_S3CRET');
    await oidcApi.fetch('/api/agui/ag_S3CRET', { method: 'POST', body: '{}', headers: jsonHeaders });
    await oidcApi.fetch('/api/mcp/mcp_S3CRET/.well-known/oauth-protected-resource');
    await oidcApi.fetch('/api/invitations/link/inv_S3CRET', { headers: { referer: `${appOrigin}/invite/ref_S3CRET` } });
    await oidcApi.fetch('/api/oauth2/callback?code=code_S3CRET&state=st', { redirect: 'manual' });
    const lines = await oidcApi.accessLines(6, (line) => /S3CRET|redacted/.test(line));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringContaining('"POST /api/webhooks/[redacted]?source=crm" 202'),
      expect.stringContaining('"GET /api/callbacks/[redacted]" 200'),
      expect.stringContaining('"POST /api/agui/[redacted]" 200'),
      expect.stringContaining('"GET /api/mcp/[redacted]/.well-known/oauth-protected-resource" 200'),
      expect.stringMatching(/"GET \/api\/invitations\/link\/\[redacted\]" 401 \d+ms referer="https:\/\/app\.cairn\.test\/invite\/\[redacted\]"$/),
      expect.stringContaining('"GET /api/oauth2/callback?[redacted]" 302'),
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
    expect(await (await devApi.fetch('/api/whoami', { headers: spoofed })).json()).toMatchObject({ clientAddress: '198.51.100.7' });
    expect(await (await oidcApi.fetch('/api/whoami', { headers: { ...spoofed, ...bearer(ada) } })).json()).toMatchObject({ clientAddress: '127.0.0.1' });
    const lines = await oidcApi.accessLines(1, (line) => line.includes('/api/whoami" 200'));
    expect(lines.at(-1)).toMatch(/^127\.0\.0\.1 "GET \/api\/whoami" 200/);
  });
});
