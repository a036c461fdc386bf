/**
 * A running turn's cancellation watch (./cancel-watch.ts) through the dispatcher's turn runner: a cancel's
 * notification stops the worker with no poll (the safety read is an hour away), also when only the session was
 * cancelled while the turn still ran (the turn then ends cancelled, not failed). The fakes are ports: a
 * WorkerLauncher whose worker runs until its signal aborts, SessionChanges in process, in-memory stores.
 * Source: spec/platform-service.md § Rules 6–7; docs/architecture.md § Life of a turn (2. The claim).
 */
import { describe, expect, it } from 'vitest';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { sessionsOf, turnsOf } from './session-store.ts';
import { cancelSession } from './sessions.ts';
import type { SessionDeps } from './session-access.ts';
import { createMemorySessionChanges } from '../testing/memory-session-changes.ts';
import { runQueuedTurn } from './turn-runner.ts';
import { runnerWorld } from '../../test/helpers/runner-world.ts';

/** A launcher whose worker runs until its signal aborts; `started` resolves once it runs. */
function endlessLauncher() {
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const launcher: WorkerLauncher = {
    reserve: async () => ({ release: () => undefined }),
    run: (options: WorkerRunOptions) =>
      new Promise((resolve) => {
        const stop = () => resolve({ ended: 'failed', reason: 'signalled', message: 'the turn worker was stopped' });
        if (options.signal?.aborted) stop();
        options.signal?.addEventListener('abort', stop, { once: true });
        started();
      }),
  };
  return { launcher, running };
}

async function world() {
  const hub = createMemorySessionChanges();
  const { launcher, running } = endlessLauncher();
  const { store, deps, queuedTurn } = runnerWorld({ launcher, more: { changes: hub, cancelPollMs: 3_600_000 } });
  const { session, turn } = await queuedTurn('talk');
  return { store, hub, deps, running, session, turn };
}

describe("the running turn's cancellation watch", () => {
  it("stops the worker when the session is cancelled, told by the cancel's notification", async () => {
    const w = await world();
    const run = runQueuedTurn(w.deps, w.turn._id);
    await w.running;
    const sessionDeps = {
      ...w.store,
      changes: w.hub,
      requireRole: async () => undefined,
      seesEveryChat: async () => true,
    } as unknown as SessionDeps;
    await cancelSession(sessionDeps, { subject: 'u1', email: 'u1@example.test' }, w.session._id);
    await run;
    expect(await turnsOf(w.store).findOne({ _id: w.turn._id })).toMatchObject({ status: 'cancelled' });
    expect(await sessionsOf(w.store).findOne({ _id: w.session._id })).toMatchObject({ status: 'cancelled' });
    expect(w.hub.watchers()).toBe(0);
  });

  it('stops the worker and ends the turn cancelled when only its session was cancelled while it ran', async () => {
    const w = await world();
    const run = runQueuedTurn(w.deps, w.turn._id);
    await w.running;
    await sessionsOf(w.store).updateOne({ _id: w.session._id }, { $set: { status: 'cancelled' } });
    w.hub.changed(w.session._id);
    await run;
    expect(await turnsOf(w.store).findOne({ _id: w.turn._id })).toMatchObject({ status: 'cancelled' });
    expect(await sessionsOf(w.store).findOne({ _id: w.session._id })).toMatchObject({ status: 'cancelled' });
    // The claim and the end of the turn were published for the chat's readers.
    expect(w.hub.published.filter((id) => id === w.session._id).length).toBeGreaterThanOrEqual(3);
  });
});
