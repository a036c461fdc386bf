import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createDocumentLease } from './document-lease.ts';
import type { Lease } from '../ports/lease.ts';
import { leaseLapseMs, leaseRenewRetryMs, runDispatcherLease } from './dispatcher-lease.ts';

/** Two dispatchers on one store with a shared fake clock; sleep advances the clock. */
function world() {
  let now = new Date('2026-11-22T10:00:00Z');
  const clock = { now: () => now };
  const lease = createDocumentLease(createMemoryDocumentStore({ now: () => now }), clock);
  return {
    lease,
    clock,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
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
      lease: w.lease,
      owner: 'second',
      clock: w.clock,
      log: (l) => lines.push(l),
      sleep: async (ms) => {
        sleeps += 1;
        // the first keeps renewing for 2 minutes, then stops gracefully
        if (sleeps <= 12) await w.lease.renew('single-dispatcher', 'first', leaseLapseMs);
        if (sleeps === 12) await w.lease.release('single-dispatcher', 'first');
        w.advance(ms);
        if (acquired > 0) stop = true;
        return true;
      },
      onAcquired: async () => {
        acquired += 1;
      },
      onLost: async () => {},
      stopping: () => stop,
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
      lease: w.lease,
      owner: 'me',
      clock: w.clock,
      log: () => {},
      sleep: async (ms) => {
        sleeps += 1;
        w.advance(sleeps === 2 ? leaseLapseMs + 1 : ms); // a stall longer than the lapse
        return true;
      },
      onAcquired: async () => {
        events.push('acquired');
      },
      onLost: async () => {
        events.push('lost');
      },
      stopping: () => sleeps >= 5,
    });
    expect(events).toEqual(['acquired', 'lost', 'acquired']);
  });

  it('retries a renewal that fails with a store error and keeps the lease when a retry succeeds in time', async () => {
    const w = world();
    const lines: string[] = [];
    const events: string[] = [];
    let failures = 2;
    const busy: Lease = {
      ...w.lease,
      renew: async (...args) => {
        if (failures > 0) {
          failures -= 1;
          throw Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR' });
        }
        return w.lease.renew(...args);
      },
    };
    let sleeps = 0;
    await runDispatcherLease({
      lease: busy,
      owner: 'me',
      clock: w.clock,
      log: (l) => lines.push(l),
      sleep: async (ms) => {
        sleeps += 1;
        events.push(`sleep ${ms}`);
        w.advance(ms);
        return true;
      },
      onAcquired: async () => {
        events.push('acquired');
      },
      onLost: async () => {
        events.push('lost');
      },
      stopping: () => sleeps >= 5,
    });
    expect(events).toEqual([
      'acquired',
      'sleep 10000',
      `sleep ${leaseRenewRetryMs}`,
      `sleep ${leaseRenewRetryMs}`,
      'sleep 10000',
      'sleep 10000',
    ]);
    expect(lines.filter((l) => l.startsWith('renewing the single-dispatcher lease failed'))).toEqual([
      'renewing the single-dispatcher lease failed (ERR_SQLITE_ERROR: database is locked); retrying in 2 s, the ' +
      'lease lapses in 20 s',
      'renewing the single-dispatcher lease failed (ERR_SQLITE_ERROR: database is locked); retrying in 2 s, the ' +
      'lease lapses in 18 s',
    ]);
    expect(lines.at(-1)).toBe('released the single-dispatcher lease');
  });

  it(
    'stops work once renewals have failed until the lease would lapse, and never throws while the store keeps ' +
      'failing',
    async () => {
      const w = world();
      const lines: string[] = [];
      const events: string[] = [];
      let storeDown = false;
      const failing = async () => {
        throw new Error('database is locked');
      };
      const flaky: Lease = {
        acquire: (...args) => (storeDown ? failing() : w.lease.acquire(...args)),
        renew: (...args) => (storeDown ? failing() : w.lease.renew(...args)),
        release: (...args) => (storeDown ? failing() : w.lease.release(...args)),
        holder: (...args) => (storeDown ? failing() : w.lease.holder(...args)),
      };
      let sleeps = 0;
      await runDispatcherLease({
        lease: flaky,
        owner: 'me',
        clock: w.clock,
        log: (l) => lines.push(l),
        sleep: async (ms) => {
          sleeps += 1;
          storeDown = true;
          w.advance(ms);
          return true;
        },
        onAcquired: async () => {
          events.push('acquired');
        },
        onLost: async () => {
          events.push('lost');
        },
        stopping: () => sleeps >= 20,
      });
      expect(events).toEqual(['acquired', 'lost']);
      expect(lines).toContain('renewing the single-dispatcher lease failed (database is locked) until it would lapse');
      expect(lines).toContain('taking the single-dispatcher lease failed (database is locked); trying again in 10 s');
    },
  );
});
