/**
 * The turn runtime end to end: the product (entrypoint, proxy, api, dispatcher, semantic-mcp, embedded redis)
 * with a models section pointing at the scripted model server and the semantic service as a tool collection.
 * The demo agent (scripts/demo/agent) is imported and published; a session goes through a tool call into the
 * flights project, a wait, a reply and a decision, and ends succeeded with its trail, usage and cost readable from
 * the API; a second decision is refused; a spend cap refuses a new session; killing the dispatcher mid-turn ends
 * that turn failed, interrupted by a platform restart, once the restarted dispatcher takes the lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.ts';
import { dispatcherPid, repoRoot, runCairn, startProduct, type ProductOptions, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn, scriptedModels } from '../helpers/scripted-model-server.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

const mode: ProductOptions = {};
const question = 'SELECT o.state, COUNT(*) AS delayed_departures FROM flights f JOIN origin_airports o ON f.origin = o.iata WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed_departures DESC LIMIT 3';
const script: ScriptedTurn[] = [
  { toolCalls: [{ name: 'semantic__execute_query', arguments: { modelName: 'flights', sql: question, store: false } }] },
  { text: 'Which period do you mean?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which period?' } }] },
  { text: 'California had the most delayed departures: 177,731.', toolCalls: [{ name: 'platform_set_variables', arguments: { variables: { answer: 'CA 177731' } } }, { name: 'platform_advance', arguments: { to: 'review', reason: 'The answer is written.' } }] },
  // The cancel case and the dispatcher-kill case: these answers never come.
  { delayMs: 600_000 },
  { delayMs: 600_000 },
  // A turn queued while the dispatcher is down.
  { text: 'Which figures do you need?' },
];

let model: ScriptedModelServer;
let product: RunningProduct;
let dataDir: string;
const ports: Record<string, string> = {};

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${product.url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() as T };
}

type Session = { id: string; status: string; state: string; pending: { kind: string; options?: { to: string }[] } | null; usage: { modelCalls: number; inputTokens: number; outputTokens: number; costUsd: number }; trail: { state: string; via: string }[]; error: { code: string; message: string } | null };

async function settled(id: string, timeoutMs = 60_000): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api<{ session: Session }>('GET', `/api/sessions/${id}`);
    if (body.session.status !== 'running') return body.session;
    if (Date.now() > deadline) throw new Error(`session ${id} still running: ${JSON.stringify(body.session)}\n${product.output.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-sessions-'));
  for (const name of ['PORT', 'API_PORT', 'SEMANTIC_MCP_PORT', 'CAIRN_EMBEDDED_QUEUE_PORT']) ports[name] = String(await freePort());
  // First boot: import the flights project, mint its token, import and publish the demo agent.
  const first = await startProduct({ CAIRN_DATA_DIR: dataDir, ...ports }, mode);
  try {
    expect(runCairn(first.url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish'], mode).status).toBe(0);
    const token = runCairn(first.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], mode).stdout.trim();
    const imported = runCairn(first.url, ['agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish'], mode);
    expect(imported.status, imported.stderr).toBe(0);
    ports.TEST_TOKEN = token;
  } finally {
    await first.stop();
  }
  // Second boot: the config offers the scripted model and the semantic service (a config is read at boot).
  const config = {
    models: scriptedModels(model, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }),
    services: [{ id: 'semantic', endpoint: `http://127.0.0.1:${ports.SEMANTIC_MCP_PORT}/mcp/flights/mcp`, token: ports.TEST_TOKEN }],
  };
  const { TEST_TOKEN: _t, ...env } = ports;
  product = await startProduct({ CAIRN_DATA_DIR: dataDir, ...env, PLATFORM_CONFIG: JSON.stringify(config) }, mode);
  // The dispatcher discovers the service while warming its catalog (retried while semantic-mcp is still starting).
  const deadline = Date.now() + 60_000;
  while (!product.output.some((line) => line.includes('[services] semantic offered')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(product.output.filter((line) => line.includes('[services]')).join('\n')).toContain('[services] semantic offered: 6 tools');
}, 180_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a session of the demo agent against the scripted model', () => {
  let sessionId: string;

  it('queries the flights project through the semantic collection, then waits for input', async () => {
    const started = await api<{ session: Session; turnId: string }>('POST', '/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: 'Which state has the most delayed departures?' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    sessionId = started.body.session.id;
    const session = await settled(sessionId);
    expect(session, product.output.slice(-40).join('\n')).toMatchObject({ status: 'awaiting_input', state: 'answer', pending: { kind: 'input' } });
    const second = model.requests[1].body;
    const toolMessage = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(toolMessage.content)).toMatchObject({ rows: [['CA', 177731], expect.any(Array), expect.any(Array)] });
    expect(second.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('semantic__execute_query');
    expect(second.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain('semantic__request_improvement');
    // The turn ran in a worker process of its own, started by the dispatcher.
    await outputLine(new RegExp(`\\[worker\\] ended turn worker \\d+ for turn ${started.body.turnId} `));
  });

  it('takes the reply, parks for a decision, and ends succeeded once decided; a second decision is refused', async () => {
    // A new publish meanwhile does not change a running session: it keeps the build it started on.
    const changed = mkdtempSync(join(tmpdir(), 'cairn-agent-'));
    cpSync(join(repoRoot, 'scripts/demo/agent'), changed, { recursive: true });
    writeFileSync(join(changed, 'AGENTS.md'), readFileSync(join(changed, 'AGENTS.md'), 'utf8').replace('You are the flights analyst', 'You are the NEW flights analyst'));
    const republished = runCairn(product.url, ['agent', 'import', changed, '--agent', 'flights-analyst', '--publish'], mode);
    rmSync(changed, { recursive: true, force: true });
    expect(republished.status, republished.stderr).toBe(0);
    const before = (await api<{ session: Session & { buildId: string } }>('GET', `/api/sessions/${sessionId}`)).body.session.buildId;
    expect((await api('POST', `/api/sessions/${sessionId}/reply`, { message: 'All of 2001.' })).status).toBe(200);
    const parked = await settled(sessionId);
    expect(parked).toMatchObject({ status: 'awaiting_decision', state: 'review', pending: { kind: 'decision', options: [{ to: 'done' }, { to: 'answer' }] } });
    expect((await api<{ session: { buildId: string } }>('GET', `/api/sessions/${sessionId}`)).body.session.buildId).toBe(before);
    expect(model.requests[2].body.messages[0].content).toContain('You are the flights analyst');
    expect(model.requests[2].body.messages[0].content).not.toContain('NEW');
    expect((await api('POST', `/api/sessions/${sessionId}/decide`, { to: 'done', comment: 'Looks right.' })).status).toBe(200);
    const second = await api<{ error: { code: string } }>('POST', `/api/sessions/${sessionId}/decide`, { to: 'answer' });
    expect(second).toMatchObject({ status: 409, body: { error: { code: 'no_decision_pending' } } });
    const done = await settled(sessionId);
    expect(done).toMatchObject({ status: 'succeeded', state: 'done' });
    expect(done.trail.map((e) => [e.state, e.via])).toEqual([['answer', 'start'], ['review', 'advance'], ['done', 'decision']]);
    expect(done.usage).toMatchObject({ modelCalls: 3, inputTokens: 30, outputTokens: 15 });
    expect(done.usage.costUsd).toBeCloseTo((30 * 3 + 15 * 15) / 1e6, 12);
    const shown = await api<{ messages: { message: { role: string } }[]; turns: { kind: string; status: string }[] }>('GET', `/api/sessions/${sessionId}`);
    expect(shown.body.turns.map((t) => [t.kind, t.status])).toEqual([['prompt', 'awaiting_input'], ['reply', 'awaiting_decision'], ['decision', 'succeeded']]);
    expect(shown.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user', 'assistant', 'tool', 'user']);
  });

  it('refuses a new session once a spend cap is reached', async () => {
    const cap = await api('PUT', '/api/agents/flights-analyst/environments/main/workflows/flights-analyst/spend-caps/month', { limitUsd: 0.0001 });
    expect(cap.status).toBe(200);
    const refused = await api<{ error: { code: string; message: string } }>('POST', '/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: 'again' });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'spend_cap_reached', message: expect.stringContaining('month (UTC)') } } });
    expect((await api('PUT', '/api/agents/flights-analyst/environments/main/workflows/flights-analyst/spend-caps/month', { limitUsd: null })).status).toBe(200);
  });

  it('cancels a running turn: the session ends cancelled, its worker is stopped and the model request aborted', async () => {
    const started = await api<{ session: Session; turnId: string }>('POST', '/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: 'Take your time.' });
    await waitForRequests(4);
    const cancelled = await api<{ session: Session }>('POST', `/api/sessions/${started.body.session.id}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 200, body: { session: { status: 'cancelled' } } });
    await model.clientClosed(3);
    const deadline = Date.now() + 15_000;
    const ended = new RegExp(`\\[worker\\] ended turn worker \\d+ for turn ${started.body.turnId} \\(signalled\\)`);
    while (!product.output.some((line) => ended.test(line)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(product.output.some((line) => ended.test(line)), product.output.slice(-10).join('\n')).toBe(true);
    expect((await api<{ session: Session }>('GET', `/api/sessions/${started.body.session.id}`)).body.session.status).toBe('cancelled');
  }, 60_000);

  it('ends a turn failed, interrupted by a platform restart, when its dispatcher is killed mid-turn', async () => {
    const started = await api<{ session: Session }>('POST', '/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: 'Hang on.' });
    const id = started.body.session.id;
    await waitForRequests(5);
    const dispatcher = dispatcherPid(product.child.pid!);
    process.kill(dispatcher, 'SIGKILL');
    // Queued while no dispatcher runs: the restarted one enqueues it again before running anything, and it runs once.
    const queued = await api<{ session: Session }>('POST', '/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: 'Queued meanwhile.' });
    const session = await settled(id, 90_000);
    expect(session).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: expect.stringContaining('interrupted by a platform restart') } });
    // The dispatcher logs what it settled once every rule has run, so the lines may follow the records by a moment.
    await outputLine('settled 1 record(s): running turn → ended failed, interrupted by a platform restart');
    await outputLine('settled 1 record(s): queued turn → enqueued again');
    expect(await settled(queued.body.session.id)).toMatchObject({ status: 'awaiting_input' });
    const shown = await api<{ turns: { status: string }[] }>('GET', `/api/sessions/${queued.body.session.id}`);
    expect(shown.body.turns.map((t) => t.status)).toEqual(['awaiting_input']);
    expect(model.requests).toHaveLength(6);
  }, 120_000);
});

/** Resolves once a line of the product's output holds `text` (or matches it); fails after 15 s naming it. */
async function outputLine(text: string | RegExp): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!product.output.some((line) => (typeof text === 'string' ? line.includes(text) : text.test(line)))) {
    if (Date.now() > deadline) throw new Error(`no output line holds "${text}":\n${product.output.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitForRequests(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (model.requests.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(model.requests).toHaveLength(count);
}
