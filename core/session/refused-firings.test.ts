/**
 * A firing whose turn the queue store refuses (full, down): one the caller waits for (no firing key: an AG-UI run,
 * an MCP call) leaves no session, no turn and no session key claim behind and answers 503 `queue_unavailable`, and a
 * delivery to a parked keyed session puts it back to awaiting input; an acknowledged firing (with a firing key) keeps
 * its session with the turn queued in the store, which the turn sweep queues later (the session moves on).
 * Source: spec/platform-service.md § Firings, § Errors; docs/architecture.md § Life of a turn (1).
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { FiringTarget } from './firings.ts';
import { openFiredSession } from './session-opening.ts';
import { sessionKeyClaimsCollection } from './session-key-claims.ts';
import { sessionsOf, turnsOf } from './session-store.ts';

const target: FiringTarget = {
  orgId: 'o1',
  agentId: 'a1',
  environment: 'main',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'chat',
  state: 'talk',
  trigger: { id: 'chat', type: 'agui' },
};

function world() {
  const queue = { refuse: false, queued: [] as string[] };
  const deps = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    ids: cryptoIds,
    clock: { now: () => new Date('2026-11-26T09:00:00Z') },
    enqueueTurn: async (id: string) => {
      if (queue.refuse) throw new Error('OOM command not allowed when used memory > maxmemory');
      queue.queued.push(id);
    },
  };
  return { deps, queue };
}

describe('a firing whose turn the queue store refuses', () => {
  it('leaves no session, turn or key claim behind when the caller waits for it, and answers 503', async () => {
    const w = world();
    w.queue.refuse = true;
    const hello = { payload: {}, message: 'Hello.' };
    const refused = { code: 'queue_unavailable', status: 503 };
    await expect(openFiredSession(w.deps, target, hello)).rejects.toMatchObject(refused);
    const keyed = { ...hello, sessionKey: 'thread-1' };
    await expect(openFiredSession(w.deps, target, keyed)).rejects.toMatchObject({ code: 'queue_unavailable' });
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(0);
    expect(await turnsOf(w.deps).countDocuments({})).toBe(0);
    expect(await w.deps.docs.collection(sessionKeyClaimsCollection).countDocuments({})).toBe(0);
    w.queue.refuse = false;
    expect(await openFiredSession(w.deps, target, keyed)).toMatchObject({ outcome: 'opened' });
  });

  it('puts a parked keyed session back to awaiting input', async () => {
    const w = world();
    const opened = await openFiredSession(w.deps, target, { payload: {}, message: 'Hello.', sessionKey: 'thread-1' });
    await sessionsOf(w.deps).updateOne({ _id: opened.session._id }, { $set: { status: 'awaiting_input' } });
    w.queue.refuse = true;
    const again = { payload: {}, message: 'Again.', sessionKey: 'thread-1' };
    await expect(openFiredSession(w.deps, target, again)).rejects.toMatchObject({ code: 'queue_unavailable' });
    expect((await sessionsOf(w.deps).findOne({ _id: opened.session._id }))?.status).toBe('awaiting_input');
    expect(await turnsOf(w.deps).countDocuments({ sessionId: opened.session._id })).toBe(1);
  });

  it("keeps an acknowledged firing's session with its queued turn for the turn sweep", async () => {
    const w = world();
    w.queue.refuse = true;
    const firingKey = '["webhook","a1","main","hooks","d-1"]';
    const firing = { payload: {}, message: 'A webhook delivery arrived.', firingKey };
    await expect(openFiredSession(w.deps, target, firing)).rejects.toThrow(/maxmemory/);
    const [session] = await sessionsOf(w.deps).find({});
    expect(session.status).toBe('running');
    expect(await turnsOf(w.deps).countDocuments({ sessionId: session._id, status: 'queued' })).toBe(1);
    w.queue.refuse = false;
    const rerun = await openFiredSession(w.deps, target, firing);
    expect(rerun).toMatchObject({ outcome: 'existing', session: { _id: session._id } });
    expect(w.queue.queued).toHaveLength(1);
  });
});
