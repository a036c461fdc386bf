/**
 * Retention of evaluation runs (./retention.ts) on the in-memory document store: an ended run older than the
 * session retention goes with its recorded calls; a newer one, one still running and another run's calls stay.
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SESSION_RETENTION_DAYS).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { evaluationCollections, type EvaluationRunRecord } from './model.ts';
import { sweepEvaluationRetention } from './retention.ts';

describe('evaluation retention', () => {
  it('removes ended runs past the session retention with their calls, and nothing else', async () => {
    const docs = createMemoryDocumentStore();
    const now = new Date(Date.UTC(2026, 10, 27));
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    const runs = docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
    const calls = docs.collection<{ _id: string; runId: string }>(evaluationCollections.calls);
    const run = (id: string, status: EvaluationRunRecord['status'], createdAt: Date) =>
      runs.insertOne({ _id: id, status, createdAt } as EvaluationRunRecord);
    await run('ev-old', 'passed', daysAgo(91));
    await run('ev-old-error', 'error', daysAgo(200));
    await run('ev-stuck', 'running', daysAgo(120));
    await run('ev-new', 'failed', daysAgo(10));
    for (const runId of ['ev-old', 'ev-old', 'ev-new', 'ev-stuck']) {
      await calls.insertOne({ _id: `${runId}-${Math.random()}`, schemaVersion: 1, runId });
    }
    const removed = await sweepEvaluationRetention({ docs, clock: { now: () => now } }, { sessionDays: 90 });
    expect(removed).toEqual({ runs: 2, calls: 2 });
    expect((await runs.find({})).map((r) => r._id).sort()).toEqual(['ev-new', 'ev-stuck']);
    expect((await calls.find({})).map((c) => c.runId).sort()).toEqual(['ev-new', 'ev-stuck']);
    expect(await sweepEvaluationRetention({ docs, clock: { now: () => now } }, { sessionDays: 90 })).toEqual({
      runs: 0,
      calls: 0,
    });
  });
});
