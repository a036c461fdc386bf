import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createDocumentLease } from './document-lease.ts';

function setup() {
  let now = new Date('2026-11-22T10:00:00Z');
  const clock = { now: () => now };
  const docs = createMemoryDocumentStore({ now: () => now });
  return {
    lease: createDocumentLease(docs, clock),
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

describe('document lease', () => {
  it('gives the lease to one owner until it lapses', async () => {
    const { lease, advance } = setup();
    expect(await lease.acquire('l', 'a', 30_000)).toBe(true);
    expect(await lease.acquire('l', 'b', 30_000)).toBe(false);
    expect(await lease.holder('l')).toBe('a');
    advance(29_999);
    expect(await lease.acquire('l', 'b', 30_000)).toBe(false);
    advance(2);
    expect(await lease.holder('l')).toBe(null);
    expect(await lease.acquire('l', 'b', 30_000)).toBe(true);
    expect(await lease.renew('l', 'a', 30_000)).toBe(false);
  });

  it('renews only for the holder, and a release frees it at once', async () => {
    const { lease, advance } = setup();
    await lease.acquire('l', 'a', 30_000);
    advance(20_000);
    expect(await lease.renew('l', 'a', 30_000)).toBe(true);
    advance(20_000);
    expect(await lease.acquire('l', 'b', 30_000)).toBe(false);
    await lease.release('l', 'b');
    expect(await lease.holder('l')).toBe('a');
    await lease.release('l', 'a');
    expect(await lease.acquire('l', 'b', 30_000)).toBe(true);
  });

  it('lets the holder take it again (restart of the same container)', async () => {
    const { lease } = setup();
    expect(await lease.acquire('l', 'a', 30_000)).toBe(true);
    expect(await lease.acquire('l', 'a', 30_000)).toBe(true);
  });
});
