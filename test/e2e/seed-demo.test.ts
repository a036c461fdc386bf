/**
 * First-start seeding (scripts/seed-demo.ts) against the real product: idempotent (a second run
 * imports nothing and keeps the tokens; a token whose creation answer was lost is revoked, not left
 * beside the new one), and retried: a step that keeps failing is tried `attempts` times, waiting for
 * the API between tries, then reported with the project named. The demo agent (scripts/seed-demo-agent.ts)
 * is imported and published in the default organization when it is missing or has no published build,
 * and left as it is otherwise.
 * Source: docs/decisions.md D6 § 1 (first-start seeding survives a restart of the API); docs/decisions.md D7 § Done
 * when.
 */
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAgent } from '../../scripts/seed-demo-agent.ts';
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

  it('publishes the demo agent when it exists without a published build, then leaves it as it is', async () => {
    const { organizations } = await (await fetch(`${product.url}/api/orgs`)).json() as { organizations: { id: string; kind: string }[] };
    const org = organizations.find((o) => o.kind === 'default')!;
    // An agent created but never published (an import cut off before --publish).
    const created = await fetch(`${product.url}/api/orgs/${org.id}/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'flights-analyst' }) });
    expect(created.status).toBe(201);
    const { id } = await created.json() as { id: string };
    log.length = 0;
    const seeded = await seedDemoAgent(options());
    expect(seeded.agentId).toBe(id);
    expect(seeded.org.id).toBe(org.id);
    expect(log).toContain('seeding demo agent flights-analyst in organization Default organization');
    const env = await (await fetch(`${product.url}/api/agents/${id}/environments/main`)).json() as { published: { buildId: string; counts: Record<string, number> } | null };
    expect(env.published).toMatchObject({ buildId: seeded.buildId, counts: { workflows: 2, states: 10 } });
    log.length = 0;
    expect(await seedDemoAgent(options())).toEqual(seeded);
    expect(log).toEqual([]);
  }, 120_000);

  it('retries the demo agent like a project, then fails naming it', async () => {
    const waits: number[] = [];
    const failing = { ...options(), url: `http://127.0.0.1:${await freePort()}`, attempts: 2, waitUntilUp: async () => { waits.push(1); } };
    await expect(seedDemoAgent(failing)).rejects.toThrow(/^demo agent flights-analyst: .+ \(tried 2 times\)$/);
    expect(waits).toHaveLength(1);
  }, 60_000);
});
