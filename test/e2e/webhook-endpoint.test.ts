/**
 * The webhook endpoint through the front proxy: a bearer webhook connection registered with `cairn connection
 * create`, a test agent whose webhook trigger names it, the scripted model. A delivery sent twice with one
 * X-Delivery-Id, and 25 concurrent retries of another, open one session each; the trigger variable carries the
 * payload; a missing or wrong token is 401, an unknown address (or a connection no trigger names) 404, and a connection's per-caller rate answers 429
 * with Retry-After. The same agent's schedule trigger (every minute, Europe/Paris) fires once per run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let hook: { url: string; token: string };

function connection(args: string[]): { url: string; token?: string } {
  const created = runCairn(product.url, ['connection', 'create', '--agent', 'hooks', '--env', 'main', ...args, '--json']);
  expect(created.status, created.stderr).toBe(0);
  return JSON.parse(created.stdout);
}

beforeAll(async () => {
  model = await startScriptedModelServer([{ text: 'Triaged the first delivery.' }, { text: 'Triaged the second delivery.' }]);
  const config = { models: scriptedModels(model) };
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify(config) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/hooks'), '--agent', 'hooks', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = connection(['--id', 'github', '--protocol', 'webhook', '--auth', 'bearer']);
  hook = { url: created.url.replace(/^https?:\/\/[^/]+/, product.url), token: created.token! };
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

const post = (url: string, headers: Record<string, string>, body = '{"action":"opened","number":7}') => fetch(`${url}?source=test`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

type Session = { id: string; status: string; variables: { trigger: { id: string; type: string; deliveryId: string; body: unknown; query: unknown } } };

describe('the webhook endpoint', () => {
  it('acknowledges a delivery at once and fires it once, also when retried and under 25 concurrent retries', async () => {
    const auth = { authorization: `Bearer ${hook.token}` };
    const first = await post(hook.url, { ...auth, 'x-delivery-id': 'd-1' });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ delivery: 'd-1' });
    const again = await post(hook.url, { ...auth, 'x-delivery-id': 'd-1' });
    expect(await again.json()).toEqual({ delivery: 'd-1', duplicate: true });
    const burst = await Promise.all(Array.from({ length: 25 }, () => post(hook.url, { ...auth, 'x-delivery-id': 'd-2' }).then((r) => r.json() as Promise<{ duplicate?: boolean }>)));
    expect(burst.filter((b) => !b.duplicate)).toHaveLength(1);

    const deadline = Date.now() + 60_000;
    let sessions: Session[] = [];
    while (Date.now() < deadline) {
      sessions = (await (await fetch(`${product.url}/api/agents/hooks/environments/main/workflows/intake/sessions`)).json() as { sessions: Session[] }).sessions;
      if (sessions.length === 2 && sessions.every((s) => s.status !== 'running')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(sessions.map((s) => s.variables.trigger.deliveryId).sort()).toEqual(['d-1', 'd-2']);
    expect(sessions.every((s) => s.status === 'awaiting_input')).toBe(true);
    expect(sessions[0].variables.trigger).toMatchObject({ id: 'github', type: 'webhook', body: { action: 'opened', number: 7 }, query: { source: 'test' } });
    expect(model.requests).toHaveLength(2);
  });

  it('refuses a missing or wrong token with 401 and an unknown address with 404', async () => {
    expect((await post(hook.url, { 'x-delivery-id': 'd-3' })).status).toBe(401);
    expect((await post(hook.url, { authorization: 'Bearer cairn_ep_wrong', 'x-delivery-id': 'd-3' })).status).toBe(401);
    expect((await post(`${product.url}/api/webhooks/not-an-address`, { 'x-delivery-id': 'd-3' })).status).toBe(404);
    // A connection no webhook trigger of the published build names serves nothing: 404, and nothing is taken.
    const unused = connection(['--id', 'unused', '--protocol', 'webhook', '--auth', 'public']);
    const refused = await post(unused.url.replace(/^https?:\/\/[^/]+/, product.url), { 'x-delivery-id': 'd-unused' });
    expect(refused.status).toBe(404);
  });

  it('fires a schedule trigger once per run, in the trigger\'s time zone', { timeout: 120_000 }, async () => {
    type Ticked = { status: string; variables: { trigger: { scheduledAt: string; timezone: string } } };
    const list = async () => (await (await fetch(`${product.url}/api/agents/hooks/environments/main/workflows/tick/sessions`)).json() as { sessions: Ticked[] }).sessions;
    const deadline = Date.now() + 100_000;
    let sessions: Ticked[] = [];
    while ((sessions = await list()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(sessions.length).toBeGreaterThan(0);
    const [first] = sessions;
    expect(first.variables.trigger).toMatchObject({ timezone: 'Europe/Paris', scheduledAt: expect.stringMatching(/:00\.000Z$/) });
    // Another sweep (every 15 s) sees the same run and fires nothing more for it.
    await new Promise((r) => setTimeout(r, 16_000));
    const runs = (await list()).map((s) => s.variables.trigger.scheduledAt);
    expect(new Set(runs).size).toBe(runs.length);
    expect((await list()).find((s) => s.variables.trigger.scheduledAt === first.variables.trigger.scheduledAt)?.status).toBe('succeeded');
  });

  it('answers 429 with Retry-After once a caller is over the connection\'s calls per minute', async () => {
    const limited = connection(['--id', 'limited', '--protocol', 'webhook', '--auth', 'public', '--rate', '2,10']);
    const url = limited.url.replace(/^https?:\/\/[^/]+/, product.url);
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await post(url, { 'x-delivery-id': `r-${i}` }));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 429]);
    expect(Number(answers[2].headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
