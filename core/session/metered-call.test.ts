/**
 * A metered model call over the in-memory stores and a ModelProvider fake (a port): every call carries the
 * workflow's output-token limit (4096 by default) and holds its reservation while it runs; a failed call is charged
 * the usage the provider reported, an aborted one that had streamed output its prompt bound plus that output, and
 * one that failed before any output nothing (its reservation released).
 */
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../ports/platform-error.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { DEFAULT_OUTPUT_TOKENS_PER_CALL, promptTokenBound } from './call-estimate.ts';
import { meteredModelCall } from './metered-call.ts';
import { sessionCollections, type SessionRecord } from './model.ts';
import { spendStatus, writeSpendCap } from './spend.ts';
import type { StoreHostDeps } from './store-host-context.ts';
import type { ModelCallRequest } from './turn-host.ts';
import type { WorkflowView } from './workflow-view.ts';

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
/** USD per million tokens: input 3, output 15. */
const costOf = (_model: string | undefined, u: ReturnType<typeof usage>) =>
  (u.inputTokens * 3 + u.outputTokens * 15) / 1e6;
const scope = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'analyst' };
const request: ModelCallRequest = {
  messages: [{ role: 'system', content: 'You count flights.' }, { role: 'user', content: 'How many?' }],
  tools: [],
  promptCache: { enabled: false, ttl: '5m' },
};
type Turn = { _id: string; usage?: Record<string, number> };
type Counter = { _id: string; committedNano: number; reservedNano: number };

function setup(
  stream: (request: ModelRequest) => AsyncIterable<ModelEvent>,
  limits: Partial<WorkflowView['limits']> = {},
) {
  const docs = createMemoryDocumentStore();
  let n = 0;
  const seen: ModelRequest[] = [];
  const models: ModelProvider = {
    stream: (r) => {
      seen.push(r);
      return stream(r);
    },
  };
  const all = { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5, ...limits };
  const view = { slug: 'analyst', limits: all, states: {} } as unknown as WorkflowView;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const deps: StoreHostDeps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-24T09:00:00Z') },
    ids,
    workflowOf: async () => view,
    models,
    costOf,
    serviceTools: async () => [],
    callServiceTool: async () => ({ output: null, isError: false }),
    promptCache: { enabled: false, ttl: '5m' },
    callSignal: () => undefined,
  };
  const session = { _id: 's1', ...scope, buildId: 'b1', messageCount: 0 } as SessionRecord;
  const turn = { _id: 't1', sessionId: 's1' };
  const turns = docs.collection<Turn>(sessionCollections.turns);
  const turnUsage = async () => (await turns.findOne({ _id: 't1' }))?.usage;
  const counter = () =>
    docs.collection<Counter>(sessionCollections.spendTotals)
      .findOne({ _id: 'a1:main:analyst:day:2026-11-24' });
  return {
    deps,
    seen,
    session,
    turn,
    turnUsage,
    counter,
    setup: async () => {
      await turns.insertOne({ _id: 't1', schemaVersion: 1, usage: { ...usage(0, 0), modelCalls: 0, costUsd: 0 } });
      await writeSpendCap(deps, scope, { period: 'day', limitUsd: 1, by: 'sub-ada' });
    },
  };
}

describe('a metered model call', () => {
  it('sends the output-token limit with every call and holds the reservation while the call runs', async () => {
    let during: unknown;
    const t = setup(async function* () {
      during = await t.counter();
      yield { type: 'text', text: 'Twelve.' };
      yield { type: 'finish', reason: 'stop', usage: usage(20, 3) };
    });
    await t.setup();
    const reply = await meteredModelCall(t.deps, t.turn, t.session, request);
    const bound = (promptTokenBound(request.messages, []) * 3 + DEFAULT_OUTPUT_TOKENS_PER_CALL * 15) / 1e6;
    expect(t.seen[0].maxOutputTokens).toBe(4096);
    expect(during).toMatchObject({ reservedNano: Math.ceil(bound * 1e9) });
    // It expires after the call's bound (the turn's 60 s here) and a grace of 60 s, should the dispatcher die.
    const [held] = Object.values((during as { reservations: Record<string, { expiresAt: Date }> }).reservations);
    expect(held.expiresAt).toEqual(new Date('2026-11-24T09:02:00Z'));
    expect(reply.costUsd).toBeCloseTo((20 * 3 + 3 * 15) / 1e6, 12);
    expect(await t.counter()).toMatchObject({ reservedNano: 0, committedNano: Math.round(reply.costUsd * 1e9) });

    const limited = setup(async function* () {
      yield { type: 'finish', reason: 'length', usage: usage(20, 100) };
    }, { outputTokensPerCall: 100 });
    await meteredModelCall(limited.deps, limited.turn, limited.session, request);
    expect(limited.seen[0].maxOutputTokens).toBe(100);
  });

  it('charges a failed call the usage the provider reported', async () => {
    const t = setup(async function* () {
      yield { type: 'text', text: 'Part' };
      throw Object.assign(new PlatformError('model_unavailable', 'scripted failure'), { usage: usage(1000, 50) });
    });
    await t.setup();
    await expect(meteredModelCall(t.deps, t.turn, t.session, request))
      .rejects.toMatchObject({ code: 'model_unavailable' });
    expect(await t.turnUsage()).toMatchObject({ inputTokens: 1000, outputTokens: 50, modelCalls: 1 });
    expect((await spendStatus(t.deps, scope))[0].spentUsd).toBeCloseTo((1000 * 3 + 50 * 15) / 1e6, 12);
    expect(await t.counter()).toMatchObject({ reservedNano: 0 });
  });

  it('charges a call aborted mid-stream without a report its prompt bound and the output received', async () => {
    const t = setup(async function* () {
      yield { type: 'text', text: 'The answer is' };
      throw new PlatformError('model_cancelled', 'cancelled');
    });
    await t.setup();
    await expect(meteredModelCall(t.deps, t.turn, t.session, request))
      .rejects.toMatchObject({ code: 'model_cancelled' });
    const prompt = promptTokenBound(request.messages, []);
    expect(await t.turnUsage()).toMatchObject({ inputTokens: prompt, outputTokens: 3, modelCalls: 1 });
    expect((await spendStatus(t.deps, scope))[0].spentUsd).toBeCloseTo((prompt * 3 + 3 * 15) / 1e6, 12);
  });

  it('charges nothing for a call that failed before any output, and releases its reservation', async () => {
    const t = setup(async function* () {
      throw new PlatformError('model_refused', 'HTTP 401');
    });
    await t.setup();
    await expect(meteredModelCall(t.deps, t.turn, t.session, request)).rejects.toMatchObject({ code: 'model_refused' });
    expect(await t.turnUsage()).toMatchObject({ modelCalls: 0 });
    expect(await t.counter()).toMatchObject({ reservedNano: 0, committedNano: 0 });
  });

  it('charges a call whose provider reported no usage its prompt bound and the output, as an estimate', async () => {
    // About 3,000 output tokens a call at 15 USD per million: a 0.08 USD day cap holds one call and refuses the next.
    const text = 'word '.repeat(3000);
    const t = setup(async function* () {
      yield { type: 'text', text };
      yield { type: 'finish', reason: 'stop', usage: usage(0, 0), usageMissing: true };
    });
    await t.setup();
    await writeSpendCap(t.deps, scope, { period: 'day', limitUsd: 0.08, by: 'sub-ada' });
    const outcomes: string[] = [];
    for (let call = 0; call < 8; call += 1) {
      outcomes.push(
        await meteredModelCall(t.deps, t.turn, t.session, request).then(
          (reply) => (reply.costUsd > 0 ? 'charged' : 'free'),
          (error: PlatformError) => error.code,
        ),
      );
    }
    expect(outcomes).toEqual(['charged', ...Array(7).fill('spend_cap_reached')]);
    const prompt = promptTokenBound(request.messages, []);
    expect(await t.turnUsage()).toMatchObject({ inputTokens: prompt, modelCalls: 1, estimatedCalls: 1 });
    expect((await t.turnUsage())!.outputTokens).toBeGreaterThan(2900);
    expect((await spendStatus(t.deps, scope))[0].spentUsd).toBeGreaterThan(0.04);
  });
});
