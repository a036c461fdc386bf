import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { calledTools, listCalls, recordCall } from './call-log.ts';
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
const call = (projectId: string, tool: string, status: 'success' | 'error', at = now) =>
  recordCall(deps, {
    projectId,
    tokenId: 't1',
    tool,
    status,
    at,
    plane: 'production',
    input: {},
    output: {},
    durationMs: 1,
  });

describe('call log', () => {
  it('offers only the tools actually called in the project, unknown tool names included', async () => {
    await call('p1', 'execute_query', 'success');
    await call('p1', 'get_datasets', 'error');
    await call('p1', 'drop_tables', 'error');
    await call('p2', 'request_improvement', 'success');
    expect(await calledTools(deps, 'p1')).toEqual(['drop_tables', 'execute_query', 'get_datasets']);
    expect(await calledTools(deps, 'p3')).toEqual([]);
  });

  it('answers a tool or model name stored whole before the bound as its marked excerpt (D18 § 4)', async () => {
    const huge = `huge_${'n'.repeat(5 * 1024 * 1024)}`;
    await recordCall(deps, {
      projectId: 'p5',
      tokenId: 't1',
      tool: huge,
      status: 'error',
      at: now,
      plane: 'production',
      input: {},
      output: {},
      durationMs: 1,
      modelName: 'm'.repeat(1_000),
    });
    const cut = `huge_${'n'.repeat(59)}… [truncated: ${huge.length} characters]`;
    const [entry] = await listCalls(deps, 'p5', {});
    expect(entry.tool).toBe(cut);
    expect(entry.modelName).toBe(`${'m'.repeat(200)}… [truncated: 1000 characters]`);
    expect(await calledTools(deps, 'p5')).toEqual([cut]);
  });

  it('filters by tool, status and an inclusive day range', async () => {
    await call('p4', 'execute_query', 'success', new Date('2026-11-01T00:00:00Z'));
    await call('p4', 'execute_query', 'error', new Date('2026-11-03T23:59:59Z'));
    await call('p4', 'get_datasets', 'error', new Date('2026-11-04T00:00:00Z'));
    expect((await listCalls(deps, 'p4', { status: 'error', from: '2026-11-01', to: '2026-11-03' })).map((c) => c.tool))
      .toEqual(['execute_query']);
    expect(await listCalls(deps, 'p4', { tool: 'get_datasets' })).toHaveLength(1);
    await expect(listCalls(deps, 'p4', { from: 'yesterday' })).rejects.toThrow(/"from" must be a date/);
  });
});
