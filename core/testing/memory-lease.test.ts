import { describe, expect, it } from 'vitest';
import { leaseContract } from './lease.contract.ts';
import { createMemoryLease, createMemoryLeaseData } from './memory-lease.ts';

leaseContract('memory fake', async () => {
  const data = createMemoryLeaseData();
  return {
    lease: createMemoryLease({ data }),
    openAnother: async () => createMemoryLease({ data }),
    cleanup: async () => {},
  };
});

describe('createMemoryLease', () => {
  it('lapses by the injected clock, without waiting', async () => {
    let nowMs = 1_000_000;
    const lease = createMemoryLease({ now: () => nowMs });
    await lease.acquire('dispatcher', 'host-a', 30_000);
    nowMs += 29_999;
    expect(await lease.holder('dispatcher')).toBe('host-a');
    expect(await lease.renew('dispatcher', 'host-a', 30_000)).toBe(true);
    nowMs += 30_000;
    expect(await lease.holder('dispatcher')).toBeNull();
    expect(await lease.acquire('dispatcher', 'host-b', 30_000)).toBe(true);
  });
});
