import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createDocumentLease } from './document-lease.ts';
import { leaseLapseMs, runDispatcherLease } from './dispatcher-lease.ts';

/** Two dispatchers on one store with a shared fake clock; sleep advances the clock. */
function world() {
  let now = new Date('2026-11-22T10:00:00Z');
  const clock = { now: () => now };
  const lease = createDocumentLease(createMemoryDocumentStore({ now: () => now }), clock);
  return { lease, clock, advance: (ms: number) => { now = new Date(now.getTime() + ms); } };
}

describe('single-dispatcher lease loop', () => {
  it('waits while another holds it, logging the holder once a minute, then takes it after release', async () => {
    const w = world();
    await w.lease.acquire('single-dispatcher', 'first', leaseLapseMs);
    const lines: string[] = [];
    let sleeps = 0;
    let acquired = 0;
    let stop = false;
    await runDispatcherLease({
      lease: w.lease, owner: 'second', log: (l) => lines.push(l),
      sleep: async (ms) => {
        sleeps += 1;
        // the first keeps renewing for 2 minutes, then stops gracefully
        if (sleeps <= 12) await w.lease.renew('single-dispatcher', 'first', leaseLapseMs);
        if (sleeps === 12) await w.lease.release('single-dispatcher', 'first');
        w.advance(ms);
        if (acquired > 0) stop = true;
        return true;
      },
      onAcquired: async () => { acquired += 1; }, onLost: async () => {}, stopping: () => stop,
    });
    expect(lines.filter((l) => l.includes('held by first'))).toHaveLength(2);
    expect(lines).toContain('took the single-dispatcher lease as second');
    expect(lines.at(-1)).toBe('released the single-dispatcher lease');
    expect(acquired).toBe(1);
    expect(await w.lease.holder('single-dispatcher')).toBe(null);
  });

  it('stops work when a renewal fails and takes the lease again later', async () => {
    const w = world();
    const events: string[] = [];
    let sleeps = 0;
    await runDispatcherLease({
      lease: w.lease, owner: 'me', log: () => {},
      sleep: async (ms) => {
        sleeps += 1;
        w.advance(sleeps === 2 ? leaseLapseMs + 1 : ms); // a stall longer than the lapse
        return true;
      },
      onAcquired: async () => { events.push('acquired'); }, onLost: async () => { events.push('lost'); },
      stopping: () => sleeps >= 5,
    });
    expect(events).toEqual(['acquired', 'lost', 'acquired']);
  });
});
