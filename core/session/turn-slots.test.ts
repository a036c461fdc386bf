/**
 * A queued turn is claimed only once a turn worker slot is free (spec/platform-service.md § Rules 7: work beyond the
 * slots waits with its job claimed): a turn waiting for a slot stays `queued`, so a dispatcher that dies meanwhile
 * leaves nothing to fail as stale, another dispatcher can run it, and a stop leaves it queued. The launcher is a
 * port fake over the real slot accounting (core/adapters/worker/slots.ts) whose worker runs until its signal aborts.
 * Source: docs/architecture.md § Life of a turn (2. The claim).
 */
import { describe, expect, it } from 'vitest';
import { WorkerSlots } from '../adapters/worker/slots.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { createMemorySessionChanges } from '../testing/memory-session-changes.ts';
import { claimTurn, turnsOf } from './session-store.ts';
import { runQueuedTurn } from './turn-runner.ts';
import { runnerWorld } from '../../test/helpers/runner-world.ts';

/** One turn slot; each worker runs until its signal aborts. `started` lists the turns whose worker started. */
function oneSlotLauncher() {
  const slots = new WorkerSlots({ turn: 1, call: 1 });
  const started: string[] = [];
  const launcher: WorkerLauncher = {
    reserve: (kind, signal) => slots.reserve(kind, signal),
    run: (options: WorkerRunOptions) =>
      slots.runInSlot(options, () =>
        new Promise((resolve) => {
          started.push(options.subject);
          const stop = () => resolve({ ended: 'failed', reason: 'signalled', message: 'the turn worker was stopped' });
          if (options.signal?.aborted) stop();
          options.signal?.addEventListener('abort', stop, { once: true });
        })),
  };
  return { launcher, slots, started };
}

async function world() {
  const { launcher, slots, started } = oneSlotLauncher();
  const stop = new AbortController();
  const hub = createMemorySessionChanges();
  const more = { changes: hub, interrupt: stop.signal, cancelPollMs: 3_600_000 };
  const { store, deps, queuedTurn } = runnerWorld({ launcher, more });
  const queued = async () => (await queuedTurn('talk')).turn;
  const statusOf = async (turnId: string) => (await turnsOf(store).findOne({ _id: turnId }))?.status;
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { store, deps, slots, started, stop, hub, queued, statusOf, until };
}

describe('a queued turn beyond the turn slots', () => {
  it('stays queued until a slot frees, so another dispatcher may take it; this one then leaves it alone', async () => {
    const w = await world();
    const first = await w.queued();
    const second = await w.queued();
    const runs = [runQueuedTurn(w.deps, first._id), runQueuedTurn(w.deps, second._id)];
    await w.until(() => w.started.length === 1 && w.slots.usage('turn').waiting === 1);
    expect(w.started).toEqual([`turn ${first._id}`]);
    expect(await w.statusOf(first._id)).toBe('running');
    expect(await w.statusOf(second._id)).toBe('queued');
    // This dispatcher dies here: the second turn's job runs again elsewhere, and its record lets it be claimed.
    expect(await claimTurn(w.store, second._id, 'dispatcher-2')).toMatchObject({ status: 'running' });
    // The first turn is cancelled: its worker stops, the slot frees, and the second's claim here finds it taken.
    await turnsOf(w.store).updateOne({ _id: first._id }, { $set: { status: 'cancelled' } });
    w.hub.changed(first.sessionId);
    await Promise.all(runs);
    expect(w.started).toEqual([`turn ${first._id}`]);
    expect(await turnsOf(w.store).findOne({ _id: second._id })).toMatchObject({ runner: 'dispatcher-2' });
    expect(w.slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });

  it('is left queued when the dispatcher stops while it waits (the turn sweep queues it again)', async () => {
    const w = await world();
    const first = await w.queued();
    const second = await w.queued();
    const runs = [runQueuedTurn(w.deps, first._id), runQueuedTurn(w.deps, second._id)];
    await w.until(() => w.started.length === 1 && w.slots.usage('turn').waiting === 1);
    w.stop.abort();
    await Promise.all(runs);
    expect(await w.statusOf(first._id)).toBe('failed');
    expect(await w.statusOf(second._id)).toBe('queued');
    expect(w.started).toEqual([`turn ${first._id}`]);
    expect(w.slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });
});
