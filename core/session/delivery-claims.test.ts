/**
 * Claimed delivery ids are remembered for DELIVERY_CLAIM_SECONDS (30 days): a retry within that is taken once; the
 * claims expire (TTL index) so the collection does not grow for ever, and a retry after that fires again. A claim
 * that still owes its session (its process stopped before opening it) is opened by the resume sweep after the grace.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  deliveriesCollection,
  type DeliveryRecord,
  ensureDeliveryIndexes,
  PENDING_FIRING_GRACE_MS,
  resumePendingFirings,
  settleDelivery,
} from './delivery-claims.ts';
import { claimDelivery } from './firings.ts';
import { openFiredSession } from './session-opening.ts';
import { DELIVERY_CLAIM_SECONDS, ensureSessionIndexes } from './session-indexes.ts';
import { sessionsOf } from './session-store.ts';

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

describe('the resume sweep', () => {
  it('opens a session a claim still owes once its grace passed, once, and logs a failing one by id only', async () => {
    let now = new Date('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    const deps = {
      docs: createMemoryDocumentStore({ now: clock.now }),
      objects: createMemoryObjectStore(),
      clock,
      ids: cryptoIds,
      enqueueTurn: async () => undefined,
    };
    const target = {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      buildId: 'b1',
      commitId: 'c1',
      workflow: 'report',
      state: 'run',
      trigger: { id: 'nightly', type: 'schedule' },
    };
    const run = '2026-11-26T09:00:00.000Z';
    const firingKey = JSON.stringify(['schedule', 'e1', 'nightly', run]);
    const firing = { payload: { scheduledAt: run }, message: 'The schedule fired.', firingKey };
    expect(await claimDelivery(deps, 'schedule:e1:nightly', run, { open: { target, firing } })).toBe(true);
    const broken = { ...firing, payload: { secret: 'payload-only' }, firingKey: 'other' };
    expect(await claimDelivery(deps, 'schedule:e1:broken', 'run-1', { open: { target, firing: broken } })).toBe(true);
    const lines: string[] = [];
    let refuse = true;
    const sweep = () =>
      resumePendingFirings({
        ...deps,
        log: (line) => {
          lines.push(line);
        },
        open: async (pending) => {
          if (pending.firing.firingKey === 'other' && refuse) throw new Error('object store unavailable');
          return openFiredSession(deps, pending.target, pending.firing);
        },
      });
    expect(await sweep()).toEqual([]);
    now = new Date(now.getTime() + PENDING_FIRING_GRACE_MS + 1_000);
    expect(await sweep()).toEqual(['schedule:e1:nightly:2026-11-26T09:00:00.000Z']);
    expect(lines).toEqual([
      '[triggers] claimed firing schedule:e1:broken:run-1 could not be resumed (object store unavailable); ' +
      'trying again next sweep',
    ]);
    expect(lines.join()).not.toContain('payload-only');
    expect(await sessionsOf(deps).countDocuments({})).toBe(1);
    refuse = false;
    expect(await sweep()).toEqual(['schedule:e1:broken:run-1']);
    expect(await sweep()).toEqual([]);
    expect(await sessionsOf(deps).countDocuments({})).toBe(2);
  });
});

describe('the resume sweep on the SQLite document store', () => {
  it('reads only the pending claims past the grace (status indexed), and queues each once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-delivery-claims-'));
    let now = new Date('2026-11-26T09:00:00Z');
    const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite'), now: () => now });
    try {
      await ensureSessionIndexes(docs);
      await ensureDeliveryIndexes(docs);
      const deps = { docs, clock: { now: () => now } };
      const job = (id: string) => ({ job: { queue: 'triggers', name: 'webhook', jobId: `webhook-${id}`, data: {} } });
      await claimDelivery(deps, 'conn1', 'old-pending', job('old-pending'));
      await claimDelivery(deps, 'conn1', 'old-done', job('old-done'));
      await settleDelivery(deps, 'conn1', 'old-done');
      await claimDelivery(deps, 'conn1', 'old-queued', job('old-queued'));
      await claimDelivery(deps, 'conn1', 'old-ended', job('old-ended'));
      now = new Date(now.getTime() + PENDING_FIRING_GRACE_MS + 1_000);
      await claimDelivery(deps, 'conn1', 'recent', job('recent'));
      const added: string[] = [];
      // The queue store: old-queued's job still waits, old-ended's has run; old-pending's was lost.
      const states: Record<string, 'pending' | 'ended'> = {
        'webhook-old-queued': 'pending',
        'webhook-old-ended': 'ended',
      };
      const queue = {
        add: async (_q: string, _n: string, _d: unknown, o?: { jobId?: string }) => {
          added.push(o!.jobId!);
          states[o!.jobId!] = 'pending';
          return o!.jobId!;
        },
        jobState: async (_q: string, jobId: string) => states[jobId] ?? 'missing' as const,
      };
      const open = async () => {
        throw new Error('unused');
      };
      const resumed = await resumePendingFirings({ ...deps, queue, open, log: () => undefined });
      expect(resumed.sort()).toEqual(['conn1:old-ended', 'conn1:old-pending']);
      expect(added).toEqual(['webhook-old-pending']);
      const left = await docs.collection<DeliveryRecord>(deliveriesCollection).find({ status: 'pending' });
      // The lost job is queued again and stays pending for its handler; a waiting job is left; an ended one settled.
      expect(left.map((c) => c.deliveryId).sort()).toEqual(['old-pending', 'old-queued', 'recent']);
      expect(await resumePendingFirings({ ...deps, queue, open, log: () => undefined })).toEqual([]);
    } finally {
      await docs.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
