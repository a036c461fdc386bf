/**
 * The pieces of scripts/bench-endpoints that run without the product: the bench agent validates (so the bench does
 * not stop at its publish when the format moves), the nearest-rank quantile, the load loop's counting (answers of
 * the expected status only in the rate and the latencies; others by status), and the per-process CPU of a process
 * tree on Linux (a reaped child counts under its parent).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateAgentRepository } from '../core/agent/validate.ts';
import { compareWithBaseline, extractRevision, targetLines } from './bench-endpoints-baseline.ts';
import { processIdsNamed, processTreeCpu, quantile, runLoad, type LoadResult } from './bench-endpoints-load.ts';

const agentRoot = resolve(import.meta.dirname, 'bench-fixtures/agents/bench-endpoints');
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

describe('the bench agent', () => {
  it('validates, with the webhook and chat triggers the bench names', () => {
    const files = walk(agentRoot).map((p) => ({ path: relative(agentRoot, p), text: readFileSync(p, 'utf8') }));
    const validation = validateAgentRepository(files);
    expect(validation.problems).toEqual([]);
    expect(validation.ok).toBe(true);
    const text = files.map((f) => f.text).join('\n');
    for (const connection of ['hook', 'hook-paused', 'hook-live', 'hook-few', 'retried', 'chat']) {
      expect(text).toContain(`connection: ${connection}`);
    }
  });
});

describe('quantile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
  });

  it('is NaN for a run with no answer of its status, so the bench prints it rather than throws', () => {
    expect(quantile([], 0.5)).toBeNaN();
    expect(() => quantile([], 0.99).toFixed(2)).not.toThrow();
  });
});

describe('runLoad', () => {
  it('counts only answers of the expected status in the rate and the latencies, and the others by status', async () => {
    const result = await runLoad(async (n) => (n % 4 === 0 ? 429 : n % 5 === 0 ? 'error' : 202), { concurrency: 4, seconds: 0.2, expected: 202 });
    const total = Object.values(result.statuses).reduce((a, b) => a + b, 0);
    expect(result.statuses['429']).toBeGreaterThan(0);
    expect(result.statuses.error).toBeGreaterThan(0);
    expect(result.answers).toBe(result.statuses['202']);
    expect(result.answers).toBeLessThan(total);
    expect(result.perSecond).toBeGreaterThan(0);
  });
});

describe.runIf(process.platform === 'linux')('processTreeCpu', () => {
  it('counts a reaped child\'s CPU under its parent and finds no product process in a tree without one', () => {
    const before = processTreeCpu(process.pid);
    const burn = spawnSync(process.execPath, ['-e', 'const t = Date.now(); while (Date.now() - t < 300) {}']);
    expect(burn.status).toBe(0);
    const after = processTreeCpu(process.pid);
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(sum(after)).toBeGreaterThan(sum(before));
    expect(processIdsNamed(process.pid, 'dispatcher')).toEqual([]);
  });
});

describe('the baseline revision', () => {
  const root = resolve(import.meta.dirname, '..');
  it('extracts a commit of this repository with its product helper and this checkout\'s node_modules', () => {
    const extracted = extractRevision(root, 'HEAD');
    try {
      expect(statSync(join(extracted.dir, 'test/helpers/product.ts')).isFile()).toBe(true);
      expect(statSync(join(extracted.dir, 'node_modules/vitest')).isDirectory()).toBe(true);
    } finally {
      extracted.remove();
    }
  });

  it('says which revision could not be extracted and why, instead of throwing a stack', () => {
    const unknown = /git could not extract no-such-revision-0000: .+/;
    expect(() => extractRevision(root, 'no-such-revision-0000')).toThrow(unknown);
    expect(() => extractRevision(root, '--output=/tmp/x')).toThrow(/is not a revision name/);
  });

  it('prints the figures beside the baseline\'s with their ratio, and a failed baseline as such', () => {
    const result = (perSecond: number, p99: number): LoadResult => ({
      answers: 10, perSecond, p50: 5, p99, statuses: { 202: 10 }, clientCpu: 0, serverCpu: {}, machineCpu: 0,
    });
    const figures = (perSecond: number, p99: number) => ({ base: result(4000, 10), hooks: result(perSecond, p99) });
    const lines = compareWithBaseline('83abf23c6998', figures(2400, 18), { parts: [], webhook: figures(1200, 50) });
    expect(lines.find((l) => l.includes('per s') && !l.includes('health'))).toMatch(/1200\s+2400\s+2\.00×\s+2\.00×/);
    expect(lines.find((l) => l.includes('p99'))).toMatch(/50\.00\s+18\.00\s+0\.36×\s+0\.36×/);
    // The machine at half its pace in the second run: the rate's ratio over the health runs' ratio.
    const slower = { base: result(2000, 10), hooks: result(1200, 50) };
    const paced = compareWithBaseline('83abf23c6998', slower, { parts: [], webhook: figures(1200, 50) });
    expect(paced.find((l) => l.includes('per s') && !l.includes('health'))).toMatch(/1200\s+1200\s+1\.00×\s+2\.00×/);
    const failed = compareWithBaseline('abc', figures(1, 1), 'git could not extract abc: unknown');
    expect(failed).toContain('baseline FAILED: git could not extract abc: unknown');
  });

  it('prints each target of docs/decisions.md D24 as a same-run ratio, the baseline\'s beside it, and whether now meets it', () => {
    const result = (perSecond: number, p99: number): LoadResult => ({
      answers: 10, perSecond, p50: 5, p99, statuses: { 202: 10 }, clientCpu: 0, serverCpu: {}, machineCpu: 0,
    });
    const now = { parts: [], webhook: { base: result(4000, 10), hooks: result(2000, 15) }, agui: { startedP50: 6, healthP50: 2 } };
    const was = { parts: [], webhook: { base: result(4000, 20), hooks: result(1000, 70) }, agui: { startedP50: 14, healthP50: 1.4 } };
    const lines = targetLines('a50ed37aa14b309961930e23967ce9ff077e024b', now, was);
    expect(lines.find((l) => l.includes('rate /'))).toMatch(/≥ 0\.4\s+0\.50\s+0\.25\s+met/);
    expect(lines.find((l) => l.includes('p99 /'))).toMatch(/≤ 2\s+1\.50\s+3\.50\s+met/);
    expect(lines.find((l) => l.includes('RUN_STARTED'))).toMatch(/≤ 4\s+3\.00\s+10\.00\s+met/);
    const unmet = targetLines(undefined, { parts: [], webhook: was.webhook }, 'git could not extract x');
    expect(unmet.find((l) => l.includes('rate /'))).toMatch(/0\.25\s+—\s+NOT met/);
    expect(unmet.find((l) => l.includes('RUN_STARTED'))).toMatch(/not measured/);
    expect(unmet).toContain('baseline FAILED: git could not extract x');
  });
});
