/**
 * End to end: the per-client-IP rate limit of the semantic endpoints, counted in the shared queue
 * store (a real redis-server) so every replica shares the count; every JSON-RPC message of a batch counts, whatever
 * its method (docs/decisions.md D18 § 3).
 * Source: spec/semantic-query-service.md § Limits (rate limit, MCP_RATE_LIMIT_MAX).
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { projectDir } from '../helpers/semantic-fixtures.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let product: RunningProduct;

beforeAll(async () => {
  redis = await startRedis();
  product = await startProduct({ MCP_RATE_LIMIT_MAX: '5', QUEUE_URL: redis.url });
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await redis?.stop();
});

describe('rate limit', () => {
  it('answers 429 with Retry-After after MCP_RATE_LIMIT_MAX requests from one client IP in 60 s, counted in the queue store', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    let body: { error?: { code?: string } } = {};
    for (let i = 0; i < 7; i += 1) {
      const response = await fetch(`${product.url}/mcp/nowhere/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      statuses.push(response.status);
      if (response.status === 429) { retryAfter = response.headers.get('retry-after'); body = await response.json(); }
    }
    // An unknown project answers 401 like a bad token (no existence oracle); the sixth request is over the limit.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(body.error?.code).toBe('rate_limited');
    expect(redis.cli('--scan', '--pattern', 'cairn:mcp-rate*').trim()).not.toBe('');
  });
});

describe('a batch of messages that run no tool', () => {
  // A product of its own: the one above has spent this address's window.
  let own: RunningProduct;
  let token = '';
  beforeAll(async () => {
    own = await startProduct({ MCP_RATE_LIMIT_MAX: '10' });
    const fixtures = join(repoRoot, 'test/fixtures/semantic/attack');
    const dir = projectDir([join(fixtures, 'public_notes.yaml')]);
    copyFileSync(join(fixtures, 'items.csv'), join(dir, 'data', 'items.csv'));
    const imported = runCairn(own.url, ['semantic', 'import', dir, '--project', 'lists', '--publish']);
    expect(imported.status, imported.stderr).toBe(0);
    const created = runCairn(own.url, ['semantic', 'token', 'create', 'lists', '--models', 'public_notes']);
    expect(created.status, created.stderr).toBe(0);
    token = created.stdout.trim();
  }, 180_000);
  afterAll(async () => {
    await own?.stop();
  });

  const listTools = (count: number) => fetch(`${own.url}/mcp/lists/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }))),
  });

  it('counts every tools/list of a batch against MCP_RATE_LIMIT_MAX before any is answered', async () => {
    const tooMany = await listTools(11);
    expect(tooMany.status).toBe(429);
    const refusal = (await tooMany.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('rate_limited');
    expect(refusal.error.message).toMatch(
      /^Too many calls from this address: this request carries 11 JSON-RPC messages and each counts against the /,
    );
    expect(refusal.error.message).toMatch(/no window holds that many\. Send at most 10 calls per request\.$/);
    // The refused batch took only the one message counted before authentication: 9 more fit the window exactly.
    const fits = await listTools(9);
    expect(fits.status).toBe(200);
    expect(await fits.json()).toHaveLength(9);
    const next = await listTools(1);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
