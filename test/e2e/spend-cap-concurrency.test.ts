/**
 * Spend caps hold under concurrency (docs/decisions.md D17 § 5), through the product (entrypoint, proxy, API,
 * dispatcher with a
 * worker per turn, embedded store) against the scripted OpenAI-compatible model server: a day cap of 1 USD on the
 * relay agent's `lead` workflow, 12 sessions started at once with 12 turn slots, a model priced per prompt token.
 * The scripted model reports the prompt tokens it was sent (o200k_base count of the messages and tools, as a
 * provider with that tokenizer would) and answers slowly, so every turn's call is asked for while the others are in
 * flight. Each call reserves its bound before it runs, so the calls that go through never spend more than the cap
 * (the bound's margin covers this provider's count: the estimate error is ≤ 0); the others end failed with
 * `spend_cap_reached` and never reach the model. The figures are printed as `[spend-cap figures] …`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import {
  startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn, scriptedModels,
} from '../helpers/scripted-model-server.ts';

const SESSIONS = 12;
const CAP_USD = 1;
/** USD per million prompt tokens; output tokens are free. */
const INPUT_PRICE = 150;
/** A long question, so that one call costs about 0.15 USD. */
const question = `Count the delayed flights of each airline; which one is worst? ${'Please be thorough. '.repeat(180)}`;

type Body = { messages: { content?: string | null; tool_calls?: unknown }[]; tools?: unknown[] };
/** The prompt tokens a provider with the o200k_base tokenizer bills for `body`. */
function promptTokens(body: Body): number {
  const text = body.messages.map((m) => `${m.content ?? ''}${m.tool_calls ? JSON.stringify(m.tool_calls) : ''}`);
  const tools = body.tools ? countTokens(JSON.stringify(body.tools)) : 0;
  return text.reduce((sum, t) => sum + countTokens(t) + 3, 3) + tools;
}

let model: ScriptedModelServer;
/** The model of the workflow-call case: the lead calls its helper, which answers, then the lead ends. */
let tree: ScriptedModelServer;
let product: RunningProduct;
/** USD per million input and output tokens of the tree model. */
const TREE_PRICE = 1000;

beforeAll(async () => {
  // Each lead session that ends (failed included) fires the relay agent's uncapped `after-lead` workflow: spare turns.
  model = await startScriptedModelServer(Array.from({ length: 3 * SESSIONS }, () => ({
    text: 'Counting.', delayMs: 4000,
    usage: (body: Body) => ({ promptTokens: promptTokens(body), completionTokens: 3 }),
  })));
  const priced = scriptedModels(model, {
    input: INPUT_PRICE, output: 0, cacheRead: INPUT_PRICE, cacheWrite: INPUT_PRICE,
  });
  // A model without prices (a free local one): a capped workflow may not run on it.
  const free = { id: 'free-model', provider: 'scripted', prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
  const advance = (to: string, tokens: number, text: string): ScriptedTurn => ({
    text, toolCalls: [{ name: 'platform_advance', arguments: { to, reason: 'done' } }],
    usage: { promptTokens: tokens, completionTokens: tokens / 10 },
  });
  tree = await startScriptedModelServer([
    {
      toolCalls: [{ name: 'platform_workflow_helper', arguments: { topic: 'delays' } }],
      usage: { promptTokens: 100, completionTokens: 10 },
    },
    advance('finished', 200, 'Looked up.'),
    advance('done', 300, 'Done.'),
  ]);
  const treeModel = scriptedModels(tree, {
    input: TREE_PRICE, output: TREE_PRICE, cacheRead: TREE_PRICE, cacheWrite: TREE_PRICE,
  });
  const treeProvider = { ...treeModel.providers[0], id: 'tree' };
  const config = {
    models: {
      providers: [...priced.providers, treeProvider],
      offered: [...priced.offered, free, { ...treeModel.offered[0], id: 'tree-model', provider: 'tree' }],
    },
  };
  product = await startProduct({
    PLATFORM_CONFIG: JSON.stringify(config), PLATFORM_WORKER_TURN_SLOTS: String(SESSIONS),
  });
  const relay = join(repoRoot, 'test/fixtures/agents/relay');
  const imported = runCairn(product.url, ['agent', 'import', relay, '--agent', 'relay', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
  await tree?.close();
});

type Session = {
  id: string; status: string; error: { code: string; message: string } | null;
  usage: { modelCalls: number; costUsd: number };
};
type Caps = { caps: { period: string; spentUsd: number; limitUsd: number | null }[] };

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const response = await fetch(`${product.url}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() as T };
}

const start = (agent: string, message: string) =>
  api<{ session: Session }>('POST', '/api/sessions', { agent, environment: 'main', workflow: 'lead', message });

async function settled(id: string): Promise<Session> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { body } = await api<{ session: Session }>('GET', `/api/sessions/${id}`);
    if (body.session.status !== 'running') return body.session;
    if (Date.now() > deadline) throw new Error(`session ${id} still running\n${product.output.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('a day cap of 1 USD and 12 sessions started at once', () => {
  it('lets through only the calls the cap can pay for; the rest end spend_cap_reached without reaching the model', {
    timeout: 240_000,
  }, async () => {
    const caps = '/api/agents/relay/environments/main/workflows/lead/spend-caps';
    expect((await api('PUT', `${caps}/day`, { limitUsd: CAP_USD })).status).toBe(200);
    const started = await Promise.all(Array.from({ length: SESSIONS }, () => start('relay', question)));
    expect(started.map((s) => s.status)).toEqual(Array(SESSIONS).fill(201));
    const sessions = await Promise.all(started.map((s) => settled(s.body.session.id)));

    const through = sessions.filter((s) => s.usage.modelCalls > 0);
    const refused = sessions.filter((s) => s.usage.modelCalls === 0);
    const { body } = await api<Caps>('GET', caps);
    const spent = body.caps.find((c) => c.period === 'day')!.spentUsd;
    const leadCalls = model.requests.filter((r) => r.body.messages.at(-1).content === question);
    const callUsd = leadCalls.map((r) => (promptTokens(r.body) * INPUT_PRICE) / 1e6);
    console.log(`[spend-cap figures] ${through.length} of ${SESSIONS} calls went through, ${spent.toFixed(4)} USD`
      + ` spent against a cap of ${CAP_USD} USD (overshoot ${Math.max(0, spent - CAP_USD).toFixed(4)} USD);`
      + ` one call cost ${callUsd[0]?.toFixed(4)} USD`);

    expect(leadCalls).toHaveLength(through.length);
    expect(through.length).toBeGreaterThan(0);
    expect(spent).toBeCloseTo(callUsd.reduce((a, b) => a + b, 0), 9);
    expect(spent).toBeLessThanOrEqual(CAP_USD);
    // The reservation is a bound, not a refusal of everything: the cap pays for as many calls as bounds fit in it.
    expect(through.length).toBeGreaterThanOrEqual(Math.floor(CAP_USD / (Math.max(...callUsd) * 1.5)));
    const refusal = { code: 'spend_cap_reached', message: expect.stringContaining('less than the call may cost') };
    for (const s of refused) expect(s).toMatchObject({ status: 'failed', error: refusal });
    expect(through.every((s) => s.status === 'awaiting_input')).toBe(true);
  });

  it('refuses a cap on a workflow that runs on a model without prices, and a publish that would leave one there', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-free-'));
    try {
      cpSync(join(repoRoot, 'test/fixtures/agents/relay'), dir, { recursive: true });
      const onFree = (slug: string) => {
        const file = join(dir, 'workflows', slug, 'workflow.yaml');
        writeFileSync(file, `settings:\n  model: free-model\n${readFileSync(file, 'utf8')}`);
      };
      onFree('helper');
      const first = runCairn(product.url, ['agent', 'import', dir, '--agent', 'relay-free', '--publish']);
      expect(first.status, first.stderr).toBe(0);
      const caps = '/api/agents/relay-free/environments/main/workflows';
      const refused = await api<{ error: { code: string; message: string } }>(
        'PUT', `${caps}/helper/spend-caps/day`, { limitUsd: 5 },
      );
      const error = { code: 'spend_cap_unpriced', message: expect.stringContaining('model "free-model"') };
      expect(refused).toMatchObject({ status: 422, body: { error } });
      expect((await api('PUT', `${caps}/lead/spend-caps/week`, { limitUsd: 5 })).status).toBe(200);
      // Moving the capped lead workflow onto the free model: the publish is refused, the published build stays.
      onFree('lead');
      const second = runCairn(product.url, ['agent', 'import', dir, '--agent', 'relay-free', '--publish']);
      expect(second.status).not.toBe(0);
      expect(`${second.stdout}${second.stderr}`)
        .toContain('workflows/lead/workflow.yaml:1:1 settings.model: Workflow "lead" has a spend cap');
      const { body } = await api<Caps>('GET', `${caps}/helper/spend-caps`);
      expect(body.caps.map((c) => c.limitUsd)).toEqual([null, null, null]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a child workflow\'s spend against its calling workflow\'s caps too', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-tree-'));
    try {
      cpSync(join(repoRoot, 'test/fixtures/agents/relay'), dir, { recursive: true });
      for (const slug of ['lead', 'helper']) {
        const file = join(dir, 'workflows', slug, 'workflow.yaml');
        writeFileSync(file, `settings:\n  model: tree-model\n${readFileSync(file, 'utf8')}`);
      }
      const imported = runCairn(product.url, ['agent', 'import', dir, '--agent', 'relay-tree', '--publish']);
      expect(imported.status, imported.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const caps = '/api/agents/relay-tree/environments/main/workflows';
    expect((await api('PUT', `${caps}/lead/spend-caps/day`, { limitUsd: 10 })).status).toBe(200);
    const started = await start('relay-tree', 'Go.');
    expect(await settled(started.body.session.id)).toMatchObject({ status: 'succeeded' });
    expect(tree.requests).toHaveLength(3);
    const cost = (input: number, output: number) => ((input + output) * TREE_PRICE) / 1e6;
    const spentOf = async (workflow: string) =>
      (await api<Caps>('GET', `${caps}/${workflow}/spend-caps`)).body.caps.map((c) => c.spentUsd);
    // The helper's call (200 + 20 tokens) is the helper's spend and the lead's; the lead's own two calls the lead's.
    const helper = cost(200, 20);
    const lead = cost(100, 10) + cost(300, 30) + helper;
    expect((await spentOf('helper')).map((v) => v.toFixed(6))).toEqual(Array(3).fill(helper.toFixed(6)));
    expect((await spentOf('lead')).map((v) => v.toFixed(6))).toEqual(Array(3).fill(lead.toFixed(6)));
  });
});
