/**
 * Claimed delivery ids are remembered for DELIVERY_CLAIM_SECONDS (30 days): a retry within that is taken once; the
 * claims expire (TTL index) so the collection does not grow for ever, and a retry after that fires again.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { claimDelivery } from './firings.ts';
import { DELIVERY_CLAIM_SECONDS, ensureSessionIndexes } from './session-store.ts';

describe('delivery claims', () => {
  it('take a delivery once within 30 days, and expire after', async () => {
    let now = new Date('2026-11-24T09:00:00Z');
    const docs = createMemoryDocumentStore({ now: () => now });
    await ensureSessionIndexes(docs);
    const deps = { docs, clock: { now: () => now } };
    expect(await claimDelivery(deps, 'conn1', 'd-1')).toBe(true);
    now = new Date(now.getTime() + (DELIVERY_CLAIM_SECONDS - 60) * 1000);
    expect(await claimDelivery(deps, 'conn1', 'd-1')).toBe(false);
    expect(await claimDelivery(deps, 'conn2', 'd-1')).toBe(true);
    now = new Date(now.getTime() + 120 * 1000);
    expect(await claimDelivery(deps, 'conn1', 'd-1')).toBe(true);
  });
});
