/**
 * Incoming connections through the real API process (bins/api/main.ts, dev-user sign-in, SQLite, a real
 * Redis as queue store) and `cairn connection …` as a real process: create prints the endpoint URL (on
 * APP_BASE_URL) and the bearer token once (`--json`: fields url and token); show and list never carry the
 * token; regenerate-token issues another; PATCH switches mode (a token once) and refuses another protocol
 * (409); bodies are checked naming the field (400); delete and re-register give the same URL back; output
 * is terminal-safe.
 * Source: docs/decisions.md D8 § Connections, § Operators; spec/platform-service.md § Incoming connection.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';

const base = 'https://agents.example.com';
let redis: RunningRedis;
let api: RunningApi;
const cairn = (...args: string[]) => runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', api.url, ...args], { env: { PATH: process.env.PATH! } });
const where = ['--agent', 'flights-analyst', '--env', 'main'];
const route = '/api/agents/flights-analyst/environments/main/connections';
const call = (method: string, path: string, body?: unknown) => fetch(`${api.url}${path}`, {
  method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
});

beforeAll(async () => {
  redis = await startRedis();
  api = await startApi(redis.url, { APP_BASE_URL: base });
  const imported = await cairn('agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst');
  if (imported.status !== 0) throw new Error(`cairn agent import failed: ${imported.stderr}${imported.stdout}`);
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await redis?.stop();
});

describe('cairn connection and the connection routes', () => {
  let chatUrl: string;

  it('creates a public AG-UI connection and prints its URL on APP_BASE_URL, without a token', async () => {
    const run = await cairn('connection', 'create', ...where, '--id', 'support-chat', '--protocol', 'agui', '--auth', 'public', '--origins', 'https://shop.example.com');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    chatUrl = /^url: (\S+)$/m.exec(run.stdout)![1];
    expect(chatUrl).toMatch(/^https:\/\/agents\.example\.com\/api\/agui\/[A-Za-z0-9_-]{32}$/);
    expect(run.stdout).toContain('created connection support-chat: agui, auth public, 30/300 calls per minute (caller/endpoint), status not_used');
    expect(run.stdout).toContain('origins: https://shop.example.com');
    expect(run.stdout).not.toContain('token');
  });

  it('creates a bearer MCP connection: --json gives url and the token once; show and list never carry it', async () => {
    const run = await cairn('--json', 'connection', 'create', ...where, '--id', 'tools', '--protocol', 'mcp', '--auth', 'bearer', '--rate', '10,100');
    expect(run.status, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout) as { url: string; token: string; connection: { rate: unknown } };
    expect(created.url).toMatch(/^https:\/\/agents\.example\.com\/api\/mcp\/[A-Za-z0-9_-]{32}$/);
    expect(created.token).toMatch(/^cairn_ep_[A-Za-z0-9_-]{43}$/);
    expect(created.connection.rate).toEqual({ perCaller: 10, perEndpoint: 100 });
    const shown = await (await call('GET', `${route}/tools`)).text();
    expect(JSON.parse(shown)).toMatchObject({ url: created.url, connection: { identifier: 'tools', auth: 'bearer', status: 'not_used' } });
    expect(shown).not.toContain(created.token);
    expect(shown).not.toContain('tokenDigest');
    const listed = await cairn('connection', 'list', ...where);
    expect(listed.stdout).toMatch(/^support-chat\s+agui\s+public\s+not_used\s+https:\/\/agents\.example\.com\/api\/agui\//m);
    expect(listed.stdout).toMatch(/^tools\s+mcp\s+bearer\s+not_used\s+https:\/\/agents\.example\.com\/api\/mcp\//m);
    const renewed = await cairn('connection', 'regenerate-token', ...where, '--id', 'tools');
    expect(renewed.status, renewed.stderr).toBe(0);
    const token = /^token: (\S+)$/m.exec(renewed.stdout)![1];
    expect(token).toMatch(/^cairn_ep_/);
    expect(token).not.toBe(created.token);
  });

  it('PATCH switches to bearer with a token once, and refuses another protocol (409) and bad fields (400)', async () => {
    const switched = await call('PATCH', `${route}/support-chat`, { auth: 'bearer', origins: ['*'] });
    expect(switched.status).toBe(200);
    const body = await switched.json() as { token?: string; connection: { auth: string; origins: string[]; pendingChange: { auth: string; origins: string[]; takesEffect: string } } };
    expect(body.token).toMatch(/^cairn_ep_/);
    // Edits take effect on the environment's next publish: shown as pending meanwhile.
    expect(body.connection).toMatchObject({ auth: 'public', origins: ['https://shop.example.com'], pendingChange: { auth: 'bearer', origins: ['*'], takesEffect: expect.stringMatching(/next publish/) } });
    const again = await (await call('PATCH', `${route}/support-chat`, { rate: { perCaller: 5, perEndpoint: 50 } })).json() as { token?: string };
    expect(again.token).toBeUndefined();
    const protocol = await call('PATCH', `${route}/support-chat`, { protocol: 'webhook' });
    expect(protocol.status).toBe(409);
    expect(await protocol.json()).toMatchObject({ error: { code: 'protocol_fixed' } });
    const publicMcp = await call('POST', route, { identifier: 'x', protocol: 'mcp', auth: 'public' });
    expect(publicMcp.status).toBe(400);
    expect(await publicMcp.json()).toEqual({ error: { code: 'invalid_argument', message: 'auth: an MCP connection cannot be public; use bearer or oidc.' } });
    const unknown = await call('POST', route, { identifier: 'x', protocol: 'agui', auth: 'public', colour: 'red' });
    expect(unknown.status).toBe(400);
    const duplicate = await call('POST', route, { identifier: 'tools', protocol: 'webhook', auth: 'public' });
    expect(duplicate.status).toBe(409);
    expect((await call('GET', '/api/agents/flights-analyst/environments/nope/connections')).status).toBe(404);
  });

  it('delete and re-register the identifier gives the same URL back', async () => {
    const deleted = await cairn('connection', 'delete', ...where, '--id', 'support-chat');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect((await call('GET', `${route}/support-chat`)).status).toBe(404);
    const again = await cairn('--json', 'connection', 'create', ...where, '--id', 'support-chat', '--protocol', 'agui', '--auth', 'public');
    expect((JSON.parse(again.stdout) as { url: string }).url).toBe(chatUrl);
  });

  it('prints refusals terminal-safe, and usage errors exit 2', async () => {
    const run = await cairn('connection', 'create', ...where, '--id', 'evil', '--protocol', 'agui', '--auth', 'public', '--origins', 'https://a.example.com\u001b[2J');
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('\u001b');
    expect(run.stderr).toContain('origins: "https://a.example.com\\u001B[2J" is not a site');
    const usage = await cairn('connection', 'create', ...where, '--protocol', 'agui');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--id is required; usage: cairn connection create/);
  });
});
