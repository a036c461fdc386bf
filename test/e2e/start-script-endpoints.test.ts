/**
 * The demo agent's endpoints and triggers against `scripts/start` as a newcomer runs it (docs/decisions.md D8 § Done
 * when),
 * with the demo model (test/helpers/demo-model.ts) standing in for CAIRN_MODEL_*: the start banner prints the
 * AG-UI, MCP and webhook endpoints of the connections it registered (chat, tools, hooks) on its own address;
 * the MCP SDK client lists and calls the workflow tool with a token from `cairn connection regenerate-token`
 * (a wrong or replaced token is 401 with a Bearer challenge), and, switched to oidc and published, admits a JWT of
 * the local OpenID provider for the declared audience only; a webhook posted twice with one X-Delivery-Id
 * opens one session; @ag-ui/client's HttpAgent chats through the review decision (a page of a site not listed is
 * refused); every finished analyst session fires the follow-up workflow's completion trigger; the weekly briefing
 * state fires from a schedule (a copy of the demo on a per-minute cron); a caller over the webhook's 600 calls
 * per minute gets 429 with Retry-After; a second start registers nothing again and prints the same addresses. A
 * script that waits for /api/health and then calls the product meets no failure during the first start (it comes
 * up once).
 * Source: README.md § The demo agent's endpoints and triggers; docs/decisions.md D8 § Done when;
 * spec/platform-service.md
 * § Incoming connection authentication, § Firings, § Errors, § Limits.
 */
import { HttpAgent } from '@ag-ui/client';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ANSWER, startDemoModelServer } from '../helpers/demo-model.ts';
import { freePort } from '../helpers/ports.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { runProcess } from '../helpers/run-process.ts';
import type { ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import { mcpClient } from '../helpers/semantic-fixtures.ts';
import { runStartScript, type StartedScript } from '../helpers/start-script.ts';

let model: ScriptedModelServer;
let start: StartedScript;
let dataDir: string;
let base: string;
let env: Record<string, string>;
/** Endpoint URLs by connection identifier, read from the banner. */
const endpoints: Record<string, string> = {};
const bannerLine = /^Demo agent (AG-UI chat|MCP tool|webhook) \((chat|tools|hooks)\): +(\S+) +\(/;
const QUESTION = 'Which state has the most delayed departures?';

/** The banner's endpoint lines of a start (waits for the last one). */
async function bannerEndpoints(run: StartedScript): Promise<Record<string, string>> {
  await run.waitForLine(/^Demo agent webhook \(hooks\): /, 300_000);
  return Object.fromEntries(run.lines.map((l) => bannerLine.exec(l)).filter((m) => m !== null).map((m) => [m[2], m[3]]));
}

beforeAll(async () => {
  model = await startDemoModelServer();
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-demo-endpoints-'));
  const ports = Object.fromEntries(await Promise.all(['PORT', 'API_PORT', 'SEMANTIC_MCP_PORT', 'CAIRN_EMBEDDED_QUEUE_PORT'].map(async (n) => [n, String(await freePort())])));
  env = { ...ports, CAIRN_DATA_DIR: dataDir, HOST: '', CAIRN_PROXY_BIND: '', PLATFORM_CONFIG: '', PLATFORM_CONFIG_FILE: '', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'demo-model', CAIRN_MODEL_API_KEY: '', CAIRN_MODEL_PROVIDER: '', CAIRN_MODEL_PRICES: '' };
  // The test's OpenID provider is on loopback over http: owner-supplied URLs may point there (docs/decisions.md D17 §
  // 6).
  env.PLATFORM_ALLOW_PRIVATE_URLS = 'true';
  base = `http://127.0.0.1:${ports.PORT}`;
  start = runStartScript(env);
  const watching = watchFromFirstHealth(base);
  Object.assign(endpoints, await bannerEndpoints(start));
  failuresAfterHealth = await watching.stop();
}, 400_000);

let failuresAfterHealth: string[] = [];

/**
 * What a script that waits for /api/health and then calls the product meets: from the first 200 of /api/health on,
 * every 250 ms it asks /api/health and GET /api/orgs; returns each answer that was not 200 (or failed), until stopped.
 */
function watchFromFirstHealth(origin: string): { stop(): Promise<string[]> } {
  const failures: string[] = [];
  let stopped = false;
  let healthy = false;
  const loop = (async () => {
    while (!stopped) {
      for (const path of healthy ? ['/api/health', '/api/orgs'] : ['/api/health']) {
        const status = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(10_000) })
          .then((r) => r.status, (error: Error) => error.message);
        if (path === '/api/health' && status === 200) healthy = true;
        else if (healthy && status !== 200) failures.push(`${path}: ${status}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return { stop: async () => { stopped = true; await loop; return failures; } };
}

afterAll(async () => {
  await start?.stop();
  await model?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** `cairn <args>` against the started product (as the README runs it); fails with its stderr. */
async function cairn(...args: string[]): Promise<string> {
  const run = await runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', base, ...args]);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

type Session = { id: string; status: string; state: string; variables: { answer?: string; trigger: { type: string; sessionId?: string; deliveryId?: string; workflow?: string } } };

/** Sessions of a workflow of the demo agent (or of `agent`). */
async function sessions(workflow: string, agent = 'flights-analyst'): Promise<Session[]> {
  const response = await fetch(`${base}/api/agents/${agent}/environments/main/workflows/${workflow}/sessions`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: Session[] }).sessions;
}

/** Polls `read` until `done` holds (at most `timeoutMs`), returning the last value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const postHook = (headers: Record<string, string>) => fetch(endpoints.hooks, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ question: QUESTION }) });

describe('the demo agent\'s endpoints against scripts/start', () => {
  it('answers a script that waited for /api/health without a failure through the first start', () => {
    expect(failuresAfterHealth).toEqual([]);
    expect(start.lines.filter((l) => l.startsWith('[start] restarting cairn once'))).toEqual([]);
  });

  it('prints the AG-UI, MCP and webhook endpoints of the connections it registered, on its own address', () => {
    expect(Object.keys(endpoints).sort()).toEqual(['chat', 'hooks', 'tools']);
    expect(endpoints.chat).toMatch(new RegExp(`^${base}/api/agui/[\\w-]+$`));
    expect(endpoints.tools).toMatch(new RegExp(`^${base}/api/mcp/[\\w-]+$`));
    expect(endpoints.hooks).toMatch(new RegExp(`^${base}/api/webhooks/[\\w-]+$`));
    expect(start.lines.filter((l) => l.startsWith('[start] registering demo connection '))).toHaveLength(3);
    // The MCP connection's token is shown by the API once and dropped: neither printed nor stored.
    expect(start.lines.some((l) => /cairn_ep_/.test(l))).toBe(false);
    expect(start.lines.find((l) => l.startsWith('Demo agent MCP tool (tools):'))).toContain('npx cairn connection regenerate-token --agent flights-analyst --env main --id tools');
  });

  it('serves the workflow tool to the MCP SDK client with a regenerated token, and refuses a wrong or replaced token with 401', async () => {
    const first = JSON.parse(await cairn('--json', 'connection', 'regenerate-token', '--agent', 'flights-analyst', '--env', 'main', '--id', 'tools')) as { token: string };
    const { token } = JSON.parse(await cairn('--json', 'connection', 'regenerate-token', '--agent', 'flights-analyst', '--env', 'main', '--id', 'tools')) as { token: string };
    const client = await mcpClient(endpoints.tools, token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.inputSchema.required])).toEqual([['flights-analyst', ['question']], ['decide', ['sessionId', 'to']]]);
      const result = await client.callTool({ name: 'flights-analyst', arguments: { question: QUESTION } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'succeeded', message: DEMO_ANSWER, returns: { answer: DEMO_ANSWER } });
    } finally {
      await client.close();
    }
    for (const wrong of ['cairn_ep_not-a-token', first.token]) {
      const refused = await fetch(endpoints.tools, { method: 'POST', headers: { authorization: `Bearer ${wrong}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('admits an OIDC caller of the declared issuer and audience once the switch to oidc is published, and refuses others with 401', async () => {
    const provider = await startOidcProvider([{ clientId: 'partner', secret: 'partner-secret-value-1' }], 'https://tools.cairn.test');
    const route = `${base}/api/agents/flights-analyst/environments/main/connections/tools`;
    const edit = (body: unknown) => fetch(route, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const listTools = (token?: string) => fetch(endpoints.tools, { method: 'POST', headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    try {
      expect((await edit({ auth: 'oidc', oidc: { issuer: provider.issuer, audience: provider.defaultResource } })).status).toBe(200);
      // Edits of a connection's mode take effect on the environment's next publish (the dispatcher applies them).
      await cairn('agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish');
      const jwt = await provider.clientCredentialsToken('partner');
      const admitted = await until(() => listTools(jwt), (answer) => answer.status !== 401, 30_000);
      expect(admitted.status).toBe(200);
      expect(await admitted.text()).toContain('"name":"flights-analyst"');
      const anonymous = await listTools();
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=".*\/\.well-known\/oauth-protected-resource"$/);
      expect((await listTools(await provider.clientCredentialsToken('partner', { resource: 'https://elsewhere.cairn.test' }))).status).toBe(401);
    } finally {
      await edit({ auth: 'bearer' });
      await cairn('agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish');
      await provider.stop();
    }
  });

  it('opens one session for a webhook posted twice with one X-Delivery-Id', async () => {
    const first = await postHook({ 'x-delivery-id': 'demo-42' });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ delivery: 'demo-42' });
    const again = await postHook({ 'x-delivery-id': 'demo-42' });
    expect(await again.json()).toEqual({ delivery: 'demo-42', duplicate: true });
    const delivered = (list: Session[]) => list.filter((s) => s.variables.trigger.type === 'webhook');
    const found = delivered(await until(() => sessions('flights-analyst'), (list) => delivered(list).some((s) => s.status !== 'running')));
    expect(found.map((s) => [s.variables.trigger.deliveryId, s.status, s.state])).toEqual([['demo-42', 'awaiting_decision', 'review']]);
  });

  it('chats through the review decision with @ag-ui/client\'s HttpAgent; a page of the web app chats, one of a site not listed is refused', async () => {
    const agent = new HttpAgent({ url: endpoints.chat });
    agent.addMessage({ id: 'u1', role: 'user', content: QUESTION });
    type Finished = { result: { status: string; sessionId: string }; outcome: { type: string; interrupts?: { id: string; reason: string }[] } };
    let finished: Finished | undefined;
    let threadSecret: string | undefined;
    const subscriber = {
      onRunStartedEvent: ({ event }: { event: { threadId: string } }) => { agent.threadId = event.threadId; },
      // A public caller's thread continues only with the secret issued with it (docs/endpoints.md § Thread secret).
      onCustomEvent: ({ event }: { event: { name: string; value: { threadSecret?: string } } }) => {
        if (event.name === 'platform.thread_secret') threadSecret = event.value.threadSecret;
      },
      onRunFinishedEvent: ({ event }: { event: unknown }) => { finished = event as Finished; },
    };
    await agent.runAgent({}, subscriber);
    expect(finished).toMatchObject({ result: { status: 'awaiting_decision' }, outcome: { type: 'interrupt', interrupts: [{ reason: 'decision' }] } });
    const interruptId = finished!.outcome.interrupts![0].id;
    expect(threadSecret).toMatch(/^[\w-]{43}$/);
    const resume = [{ interruptId, status: 'resolved', payload: { to: 'done', comment: 'Looks right.' } }];
    await agent.runAgent(
      { resume, forwardedProps: { threadSecret } } as Parameters<HttpAgent['runAgent']>[0], subscriber,
    );
    expect(finished).toMatchObject({ result: { status: 'succeeded' }, outcome: { type: 'success' } });
    const body = JSON.stringify({ threadId: '', runId: 'r', tools: [], context: [], messages: [{ id: 'u1', role: 'user', content: QUESTION }] });
    const fromPage = (origin: string) => fetch(endpoints.chat, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', origin }, body });
    // A page of the web app cairn serves (a listed origin) chats; a page of another site is refused before anything starts.
    const own = await fromPage(base.replace('127.0.0.1', 'localhost'));
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('RUN_FINISHED');
    expect((await fromPage('https://elsewhere.example')).status).toBe(403);
  });

  it('fires the follow-up workflow\'s completion trigger after each finished analyst session', async () => {
    const finished = (await sessions('flights-analyst')).filter((s) => s.status === 'succeeded').map((s) => s.id).sort();
    expect(finished).toHaveLength(2); // the MCP call's and the AG-UI chat's
    const followUps = await until(() => sessions('follow-up'), (list) => list.filter((s) => s.status === 'awaiting_decision').length >= 2);
    expect(followUps.map((s) => s.variables.trigger.sessionId).sort()).toEqual(finished);
    expect(followUps.every((s) => s.state === 'triage' && s.variables.trigger.workflow === 'flights-analyst')).toBe(true);
  });

  it('fires the weekly briefing from its schedule (a copy of the demo on a per-minute cron)', { timeout: 150_000 }, async () => {
    const copy = mkdtempSync(join(tmpdir(), 'cairn-demo-copy-'));
    try {
      cpSync(join(repoRoot, 'scripts/demo/agent'), copy, { recursive: true });
      const file = join(copy, 'workflows/flights-analyst/workflow.yaml');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('cron: "0 7 * * 1"');
      writeFileSync(file, text.replace('cron: "0 7 * * 1"', 'cron: "* * * * *"'));
      await cairn('agent', 'import', copy, '--agent', 'briefing-check', '--publish');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const briefed = await until(() => sessions('flights-analyst', 'briefing-check'), (list) => list.some((s) => s.status === 'awaiting_decision'), 130_000);
    expect(briefed.find((s) => s.status === 'awaiting_decision')).toMatchObject({ state: 'review', variables: { answer: DEMO_ANSWER, trigger: { type: 'schedule' } } });
  });

  it('answers 429 with Retry-After once a caller is over the webhook\'s 600 calls per minute', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    while (statuses.length < 620 && !limited) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => postHook({ 'x-delivery-id': 'demo-42' })));
      for (const answer of batch) {
        statuses.push(answer.status);
        if (answer.status === 429) limited ??= answer;
        else await answer.body?.cancel();
      }
    }
    expect(limited, `statuses: ${[...new Set(statuses)].join(', ')}`).toBeDefined();
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(600);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('registers nothing again on a second start and prints the same addresses', async () => {
    await start.stop();
    start = runStartScript(env);
    expect(await bannerEndpoints(start)).toEqual(endpoints);
    expect(start.lines.filter((l) => l.startsWith('[start] registering demo connection '))).toEqual([]);
  }, 400_000);
});
