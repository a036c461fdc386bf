/** Monitoring's plots: calls, errors and execute_query latency per time bucket (callStats). */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { callStats, percentile, recordCall } from './call-log.ts';
import type { SemanticDeps } from './deps.ts';

let counter = 0;
const now = new Date('2026-11-22T10:00:00Z');
const deps: SemanticDeps = {
  docs: createMemoryDocumentStore({ now: () => now }),
  objects: createMemoryObjectStore(),
  clock: { now: () => now },
  ids: {
    newId: () => `id${(counter += 1)}`,
    randomBytes: (n) => new Uint8Array(n),
    sha256Hex: async () => '0'.repeat(64),
  },
};
const call = (
  projectId: string,
  tool: string,
  status: 'success' | 'error',
  at: string,
  durationMs = 1,
  tokenId = 't1',
) =>
  recordCall(deps, {
    projectId,
    tokenId,
    tool,
    status,
    at: new Date(at),
    plane: 'test',
    input: {},
    output: {},
    durationMs,
  });

describe('callStats', () => {
  it('counts calls and errors per bucket and the p50/p95 of execute_query durations only', async () => {
    await call('s1', 'execute_query', 'success', '2026-11-22T09:00:10Z', 10);
    await call('s1', 'execute_query', 'success', '2026-11-22T09:00:20Z', 30);
    await call('s1', 'execute_query', 'error', '2026-11-22T09:00:30Z', 20);
    await call('s1', 'get_datasets', 'success', '2026-11-22T09:00:40Z', 999);
    await call('s1', 'get_datasets', 'error', '2026-11-22T09:20:00Z', 5);
    await call('s1', 'execute_query', 'success', '2026-11-22T12:00:00Z', 5); // after `to`
    await call('s2', 'execute_query', 'success', '2026-11-22T09:00:00Z', 5); // another project
    const stats = await callStats(deps, 's1', {
      from: '2026-11-22T09:00:00Z',
      to: '2026-11-22T09:29:59.999Z',
      bucketMinutes: 15,
    });
    expect(stats.bucketMinutes).toBe(15);
    expect(stats.sampled).toBe(false);
    expect(
      stats.buckets.map((b) => [b.start.toISOString(), b.calls, b.errors, b.queries, b.latencyP50Ms, b.latencyP95Ms]),
    ).toEqual([
      ['2026-11-22T09:00:00.000Z', 4, 1, 3, 20, 30],
      ['2026-11-22T09:15:00.000Z', 1, 1, 0, null, null],
    ]);
  });

  it('applies the filters of the call log and an inclusive day range; defaults to the last 24 h', async () => {
    await call('s3', 'execute_query', 'error', '2026-11-21T23:59:59Z', 1, 'a');
    await call('s3', 'execute_query', 'error', '2026-11-21T12:00:00Z', 1, 'b');
    await call('s3', 'execute_query', 'success', '2026-11-21T13:00:00Z', 1, 'a');
    const day = await callStats(deps, 's3', { from: '2026-11-21', to: '2026-11-21', status: 'error', tokenId: 'a' });
    expect(day.bucketMinutes).toBe(15);
    expect(day.buckets).toHaveLength(96);
    expect(day.buckets.reduce((n, b) => n + b.calls, 0)).toBe(1);
    expect(day.buckets.at(-1)?.errors).toBe(1);
    const recent = await callStats(deps, 's3', {});
    expect(recent.to.toISOString()).toBe(now.toISOString());
    expect(recent.from.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(recent.buckets.reduce((n, b) => n + b.calls, 0)).toBe(3);
  });

  it('refuses a reversed range, a bad bucket width and too many buckets', async () => {
    await expect(callStats(deps, 's1', { from: '2026-11-02', to: '2026-11-01' })).rejects.toMatchObject({
      code: 'invalid_argument',
      status: 400,
    });
    await expect(callStats(deps, 's1', { bucketMinutes: 0 })).rejects.toThrow(/bucketMinutes/);
    await expect(callStats(deps, 's1', { bucketMinutes: 1.5 })).rejects.toThrow(/bucketMinutes/);
    await expect(callStats(deps, 's1', { from: '2026-01-01', to: '2026-11-01', bucketMinutes: 1 })).rejects.toThrow(
      /wider buckets/,
    );
  });

  it('takes the nearest-rank percentile', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([5], 0.95)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(percentile([10, 1, 9, 2, 8, 3, 7, 4, 6, 5], 0.95)).toBe(10);
  });
});
