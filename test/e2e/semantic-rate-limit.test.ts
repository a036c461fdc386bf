/**
 * End to end: the per-client-IP rate limit of the semantic endpoints, counted in the shared queue
 * store (a real redis-server) so every replica shares the count.
 * Source: spec/semantic-query-service.md § Limits (rate limit, MCP_RATE_LIMIT_MAX).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProduct, type RunningProduct } from '../helpers/product.ts';
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
