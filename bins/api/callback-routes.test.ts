/**
 * The callback endpoint's calls per minute (docs/decisions.md D17 § 6): a webhook's defaults, 600 per caller and per
 * address,
 * counted before the address is looked up; the 601st call of a minute is 429 with Retry-After, another address
 * is counted apart.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../core/ports/logger.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { callbackRates, callbackRoutes } from './callback-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };

describe('callback endpoint rate', () => {
  it('answers 429 with Retry-After past the per-endpoint calls of a minute', async () => {
    const app = callbackRoutes({
      docs: createMemoryDocumentStore(),
      ids: { newId: () => 'x', randomBytes: (n) => new Uint8Array(n), sha256Hex: async () => '0'.repeat(64) },
      builds: {} as never, services: [], print: () => undefined, logger, clientAddress: () => '203.0.113.7',
    });
    const call = (address: string) =>
      app.handle(new Request(`http://localhost/api/callbacks/${address}`, { method: 'POST', body: '{}' }));
    expect(callbackRates).toEqual({ perCaller: 600, perEndpoint: 600 });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 600; i += 1) {
      const { status } = await call('cb_unknown');
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect([...statuses]).toEqual([[404, 600]]);
    const refused = await call('cb_unknown');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect((await call('cb_other')).status).toBe(404);
  });
});
