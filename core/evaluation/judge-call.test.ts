/**
 * A judge call metered against the case workflow's spend caps (./judge-call.ts), on the in-memory document store
 * with a played model: its cost is counted in the workflow's spend and reported apart; a call that fails mid-stream
 * is charged what it received, one that fails before any output nothing; a cap it cannot fit refuses the call before
 * any model is called; the call's output is bounded.
 * Source: issue "Evaluations" § Runs, § Rubrics.
 */
import { describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import { spendStatus, writeSpendCap } from '../session/spend.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { JUDGE_OUTPUT_TOKENS, meteredJudgeCall } from './judge-call.ts';

const scope = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'answer' };
const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 };
// USD per token: input 3, output 15 per million.
const costOf = (_model: string | undefined, u: typeof usage) => (u.inputTokens * 3 + u.outputTokens * 15) / 1e6;

function world() {
  let n = 0;
  const deps = {
    docs: createMemoryDocumentStore(),
    clock: { now: () => new Date(Date.UTC(2026, 10, 27, 12)) },
    ids: { newId: () => `r${(n += 1)}` },
  };
  const asked: ModelRequest[] = [];
  const models: ModelProvider = {
    async *stream(request) {
      asked.push(request);
      yield { type: 'text', text: '{"score": 0.9, "reason": "ok"}' };
      yield { type: 'finish', reason: 'stop', usage };
    },
  };
  const call = { models, model: 'judge', messages: [{ role: 'user' as const, content: 'Grade this.' }], costOf };
  return { deps, asked, call: { ...call, promptCache: { enabled: false, ttl: '5m' as const } } };
}

describe('meteredJudgeCall', () => {
  it("counts the judge's cost in the workflow's spend and reports it apart, its output bounded", async () => {
    const { deps, asked, call } = world();
    const answer = await meteredJudgeCall(deps, scope, call);
    expect(answer).toEqual({ text: '{"score": 0.9, "reason": "ok"}', usage, costUsd: 0.0045 });
    expect(asked[0]!.maxOutputTokens).toBe(JUDGE_OUTPUT_TOKENS);
    const day = (await spendStatus(deps, scope)).find((s) => s.period === 'day')!;
    expect(day.spentUsd).toBeCloseTo(0.0045, 10);
  });

  it('charges a judge that failed mid-stream what it received, one that failed before any output nothing', async () => {
    const { deps, call } = world();
    const failing = (text: string): ModelProvider => ({
      async *stream() {
        if (text) yield { type: 'text', text };
        throw new Error('the connection dropped');
      },
    });
    const spent = async () => (await spendStatus(deps, scope)).find((s) => s.period === 'day')!.spentUsd;
    await expect(meteredJudgeCall(deps, scope, { ...call, models: failing('') })).rejects.toThrow('dropped');
    expect(await spent()).toBe(0);
    await expect(meteredJudgeCall(deps, scope, { ...call, models: failing('{"score": 0.') })).rejects.toThrow(
      'dropped',
    );
    expect(await spent()).toBeGreaterThan(0);
  });

  it('refuses a call that does not fit a cap before calling the model', async () => {
    const { deps, asked, call } = world();
    await writeSpendCap(deps, scope, { period: 'day', limitUsd: 0.000001, by: 'sub-ada' });
    await expect(meteredJudgeCall(deps, scope, call)).rejects.toMatchObject({ code: 'spend_cap_reached' });
    expect(asked).toEqual([]);
  });
});
