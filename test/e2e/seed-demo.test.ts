/**
 * First-start seeding (scripts/seed-demo.ts) against the real product: idempotent (a second run
 * imports nothing and keeps the tokens; a token whose creation answer was lost is revoked, not left
 * beside the new one), and retried: a step that keeps failing is tried `attempts` times, waiting for
 * the API between tries, then reported with the project named.
 * Source: issue 6 § 1 (first-start seeding survives a restart of the API).
 */
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../scripts/seed-demo.ts';
import { freePort } from '../helpers/ports.ts';
import { repoRoot, startProduct, type RunningProduct } from '../helpers/product.ts';

let product: RunningProduct;
const log: string[] = [];
const options = () => ({ url: product.url, dataDir: product.dataDir, root: repoRoot, log: (l: string) => log.push(l), waitUntilUp: async () => undefined });
const activeDemoTokens = async (project: string) => {
  const { tokens } = await (await fetch(`${product.url}/api/semantic/projects/${project}/tokens`)).json() as { tokens: { id: string; name: string; state: string }[] };
  return tokens.filter((t) => t.name === 'demo' && t.state === 'active');
};

beforeAll(async () => { product = await startProduct(); }, 120_000);
afterAll(async () => { await product?.stop(); });

describe('seedDemo', () => {
  it('seeds both projects once; a second run imports nothing and returns the same tokens', async () => {
    const first = await seedDemo(options());
    expect(Object.keys(first).sort()).toEqual(['flights', 'tpcds']);
    log.length = 0;
    expect(await seedDemo(options())).toEqual(first);
    expect(log.filter((l) => l.startsWith('seeding demo project'))).toEqual([]);
  }, 240_000);

  it('creates a new token when the saved one is missing, revoking the orphan so one demo token stays active', async () => {
    const before = await activeDemoTokens('flights');
    unlinkSync(join(product.dataDir, 'demo-tokens.json'));
    const tokens = await seedDemo(options());
    const after = await activeDemoTokens('flights');
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(before[0].id);
    expect(tokens.flights).toMatch(/^cairn_mcp_/);
  }, 120_000);

  it('retries a failing step, waiting for the API each time, then fails naming the project', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-seed-data-'));
    try {
      // An API that never answers (nothing listens on this port): every attempt fails.
      const waits: number[] = [];
      const failing = { ...options(), url: `http://127.0.0.1:${await freePort()}`, dataDir, attempts: 3, waitUntilUp: async () => { waits.push(1); } };
      await expect(seedDemo(failing)).rejects.toThrow(/^demo project flights: .+ \(tried 3 times\)$/);
      expect(waits).toHaveLength(2);
      expect(log.filter((l) => /^seeding flights failed \(.+\); trying again once the API answers \(attempt [23] of 3\)$/.test(l))).toHaveLength(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
