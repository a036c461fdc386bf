/**
 * A running turn's cancellation watch (./cancel-watch.ts) through the dispatcher's turn runner: a cancel's
 * notification stops the worker with no poll (the safety read is an hour away), also when only the session was
 * cancelled while the turn still ran (the turn then ends cancelled, not failed). The fakes are ports: a
 * WorkerLauncher whose worker runs until its signal aborts, SessionChanges in process, in-memory stores.
 * Source: spec/platform-service.md § Rules 6–7; docs/architecture.md § Life of a turn (2. The claim).
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { cancelSession } from './sessions.ts';
import type { SessionDeps } from './session-access.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { createMemorySessionChanges } from '../testing/memory-session-changes.ts';
import { runQueuedTurn, type TurnRunnerDeps } from './turn-runner.ts';

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
  let n = 0;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids };
  const hub = createMemorySessionChanges();
  const { launcher, running } = endlessLauncher();
  const deps = {
    ...store,
    launcher,
    changes: hub,
    cancelPollMs: 3_600_000,
    instanceId: 'dispatcher-1',
    models: {
      stream: () => {
        throw new Error('unused');
      },
    },
    costOf: () => 0,
    promptCache: { enabled: false, ttl: '5m' },
    limits: { memoryMb: 256, wallTimeSeconds: 60 },
    workflowOf: async () => {
      throw new Error('unused');
    },
    catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) },
  } as unknown as TurnRunnerDeps;
  const session = await insertSession(store, {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'chat',
    buildId: 'b1',
    commitId: 'c1',
    state: 'talk',
    variables: {},
    lockedVariables: [],
    trigger: 'manual',
    depth: 0,
    inheritedForbid: [],
  });
  const turn = await insertTurn(store, session, { kind: 'prompt', input: { message: 'Hello?' } });
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
