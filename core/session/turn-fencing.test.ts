/**
 * Interleavings of a turn's writers, made deterministic by a DocumentStore wrapper (a port) that runs another
 * writer right after a chosen call: cancel against claim, a checkpoint against the stale sweep, the stale sweep
 * against a renewed heartbeat; and the turn sweep settling a session its settle left `running`.
 *
 * Source: docs/architecture.md § Life of a turn.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentStore, Filter } from '../ports/document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { sessionCollections } from './model.ts';
import { openSessionWithTurn } from './queued-turns.ts';
import { applyCheckpoint } from './session-checkpoint.ts';
import { beatTurn, claimTurn, insertSession, readThread, sessionsOf, turnsOf } from './session-store.ts';
import { settleTurn } from './turn-settle.ts';
import { cancelSession } from './sessions.ts';
import type { SessionDeps } from './session-access.ts';
import { failStaleTurns } from './stale-turns.ts';
import { recoverTurns } from './turn-recovery.ts';

/** Calls `then` once, right after the first call of `method` on `collection` whose filter `when` accepts. */
function interleaved(
  docs: DocumentStore,
  collection: string,
  method: string,
  when: (filter: Filter) => boolean,
  then: () => Promise<void>,
): DocumentStore {
  let done = false;
  return {
    collection: (name) =>
      new Proxy(docs.collection(name), {
        get: (inner, key: string) => async (...args: unknown[]) => {
          const result = await (inner as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[key](
            ...args,
          );
          if (!done && name === collection && key === method && when(args[0] as Filter)) {
            done = true;
            await then();
          }
          return result;
        },
      }),
    close: () => docs.close(),
  };
}

function setup() {
  let n = 0;
  const docs = createMemoryDocumentStore();
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  let at = Date.UTC(2026, 10, 26, 12, 0, 0);
  const clock = { now: () => new Date(at) };
  const store = { docs, objects: createMemoryObjectStore(), clock, ids };
  const fields = {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'w',
    buildId: 'b',
    commitId: 'c',
    state: 'answer',
    variables: {},
    lockedVariables: [],
    trigger: 'manual',
    depth: 0,
    inheritedForbid: [],
  };
  const queuing = { ...store, enqueueTurn: async () => undefined };
  const session = async () => openSessionWithTurn(queuing, fields, 'prompt', { message: 'hi' });
  const api = (over: DocumentStore): SessionDeps => ({
    ...store,
    docs: over,
    requireRole: async () => undefined,
    seesEveryChat: async () => true,
    resolveWorkflow: async () => {
      throw new Error('unused');
    },
    resolveAgent: async () => ({ orgId: 'o1', agentId: 'a1' }),
    enqueueTurn: async () => undefined,
  });
  return {
    docs,
    store,
    session,
    api,
    fields,
    advance: (ms: number) => {
      at += ms;
    },
  };
}

const caller = { subject: 'u1', email: 'u1@example.test' };
const notRunning = { code: 'turn_not_running' };
const live = JSON.stringify({ $in: ['queued', 'running'] });
const cancelsTurns = (filter: Filter) => JSON.stringify(filter.status) === live;

describe('cancel and claim are exclusive', () => {
  it("a claim between cancel's read of the queued turns and its write does not run the turn", async () => {
    const t = setup();
    const { session, turn } = await t.session();
    let claimed: unknown = 'not yet';
    const docs = interleaved(t.docs, sessionCollections.turns, 'find', cancelsTurns, async () => {
      claimed = await claimTurn(t.store, turn._id, 'dispatcher-1');
    });
    await cancelSession(t.api(docs), caller, session._id);
    expect(claimed).toBeNull();
    expect(await turnsOf(t.store).findOne({ _id: turn._id })).toMatchObject({ status: 'cancelled' });
    expect(await sessionsOf(t.store).findOne({ _id: session._id })).toMatchObject({ status: 'cancelled' });
  });

  it("a cancel between the claim of the turn and the claim's session write makes the claim back off", async () => {
    const t = setup();
    const { session, turn } = await t.session();
    const docs = interleaved(t.docs, sessionCollections.turns, 'updateOne', (f) => f.status === 'queued', async () => {
      await cancelSession(t.api(t.docs), caller, session._id);
    });
    expect(await claimTurn({ ...t.store, docs }, turn._id, 'dispatcher-1')).toBeNull();
    expect(await turnsOf(t.store).findOne({ _id: turn._id })).toMatchObject({ status: 'cancelled' });
  });

  it("a cancel after the claim cancels the running turn, and its runner's next checkpoint is refused", async () => {
    const t = setup();
    const { session, turn } = await t.session();
    const claimed = (await claimTurn(t.store, turn._id, 'dispatcher-1'))!;
    expect(await sessionsOf(t.store).findOne({ _id: session._id })).toMatchObject({ lease: claimed.lease, next: null });
    await cancelSession(t.api(t.docs), caller, session._id);
    expect(await turnsOf(t.store).findOne({ _id: turn._id })).toMatchObject({ status: 'cancelled' });
    const fence = { runner: 'dispatcher-1', lease: claimed.lease! };
    await expect(applyCheckpoint(t.store, claimed, { state: 'other' }, fence)).rejects.toMatchObject(notRunning);
  });
});

/** A process that dies after its `writes`-th write: every later write of it fails (a DocumentStore wrapper). */
function dyingAfter(docs: DocumentStore, writes: number): DocumentStore {
  let done = 0;
  const writing = new Set(['insertOne', 'updateOne', 'deleteOne', 'deleteMany']);
  return {
    collection: (name) =>
      new Proxy(docs.collection(name), {
        get: (inner, key: string) => async (...args: unknown[]) => {
          if (writing.has(key) && (done += 1) > writes) throw new Error('the process died');
          return (inner as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[key](...args);
        },
      }),
    close: () => docs.close(),
  };
}

describe('a checkpoint killed between its writes', () => {
  for (const writes of [1, 2]) {
    it(
      `dies after ${writes} of its 2 messages, before the session's write: no reader sees them; the turn fails stale`,
      async () => {
        const t = setup();
        const { session, turn } = await t.session();
        const claimed = (await claimTurn(t.store, turn._id, 'dispatcher-1'))!;
        const fence = { runner: 'dispatcher-1', lease: claimed.lease! };
        const first = { role: 'assistant' as const, content: 'Committed.' };
        await applyCheckpoint(t.store, claimed, { messages: [first] }, fence);
        const step = [{ role: 'assistant' as const, content: 'Lost 1.' }, {
          role: 'user' as const,
          content: 'Lost 2.',
        }];
        const dying = { ...t.store, docs: dyingAfter(t.docs, writes) };
        await expect(applyCheckpoint(dying, claimed, { state: 'other', messages: step }, fence)).rejects.toThrow(
          'the process died',
        );
        const stored = await t.docs.collection(sessionCollections.messages).find({ sessionId: session._id });
        expect(stored).toHaveLength(1 + writes);
        const left = (await sessionsOf(t.store).findOne({ _id: session._id }))!;
        expect(left).toMatchObject({ status: 'running', state: 'answer', messageCount: 1 });
        expect((await readThread(t.store, left)).map((m) => m.message)).toEqual([first]);
        t.advance(61_000);
        const told: string[] = [];
        const changes = { changed: (rootId: string) => void told.push(rootId), watch: async () => () => undefined };
        expect(await failStaleTurns({ ...t.store, changes })).toEqual([turn._id]);
        expect(told).toEqual([session._id]);
        const ended = (await sessionsOf(t.store).findOne({ _id: session._id }))!;
        expect(ended).toMatchObject({ status: 'failed', messageCount: 1 });
        expect((await readThread(t.store, ended)).map((m) => m.message)).toEqual([first]);
      },
    );
  }
});

describe("a turn's writes are fenced by its runner and lease", () => {
  it('a checkpoint whose turn was failed as stale after it was read writes nothing to the session', async () => {
    const t = setup();
    const { session, turn } = await t.session();
    const claimed = (await claimTurn(t.store, turn._id, 'dispatcher-1'))!;
    t.advance(61_000);
    const docs = interleaved(t.docs, sessionCollections.turns, 'findOne', (f) => f._id === turn._id, async () => {
      expect(await failStaleTurns(t.store)).toEqual([turn._id]);
    });
    const fence = { runner: 'dispatcher-1', lease: claimed.lease! };
    const said = { role: 'assistant' as const, content: 'A step of a turn that no longer runs.' };
    const patch = { state: 'other', trail: { state: 'other', via: 'advance' as const }, messages: [said] };
    await expect(applyCheckpoint({ ...t.store, docs }, claimed, patch, fence)).rejects.toMatchObject(notRunning);
    const after = await sessionsOf(t.store).findOne({ _id: session._id });
    expect(after).toMatchObject({ status: 'failed', state: 'answer', messageCount: 0 });
    expect(after!.trail).toHaveLength(1);
    expect(await readThread(t.store, session)).toEqual([]);
  });

  it('a settle or checkpoint under another lease or runner writes nothing', async () => {
    const t = setup();
    const { session, turn } = await t.session();
    const claimed = (await claimTurn(t.store, turn._id, 'dispatcher-1'))!;
    expect(await settleTurn(t.store, claimed, { status: 'succeeded' }, { lease: 'an-older-lease' })).toBe(false);
    const other = { runner: 'dispatcher-2', lease: claimed.lease! };
    await expect(applyCheckpoint(t.store, claimed, { state: 'other' }, other)).rejects.toMatchObject(notRunning);
    const after = await sessionsOf(t.store).findOne({ _id: session._id });
    expect(after).toMatchObject({ status: 'running', state: 'answer' });
    expect(await settleTurn(t.store, claimed, { status: 'succeeded' }, { lease: claimed.lease })).toBe(true);
    expect(await sessionsOf(t.store).findOne({ _id: session._id })).toMatchObject({ status: 'succeeded', lease: null });
  });

  it('the stale sweep leaves a turn whose heartbeat was renewed after the sweep read it', async () => {
    const t = setup();
    const { turn } = await t.session();
    await claimTurn(t.store, turn._id, 'dispatcher-1');
    t.advance(61_000);
    const docs = interleaved(t.docs, sessionCollections.turns, 'find', (f) => 'heartbeatAt' in f, async () => {
      await beatTurn(t.store, turn._id, 'dispatcher-1');
    });
    expect(await failStaleTurns({ ...t.store, docs })).toEqual([]);
    expect(await turnsOf(t.store).findOne({ _id: turn._id })).toMatchObject({ status: 'running' });
  });
});

describe('the turn sweep settles sessions left running with no turn', () => {
  it('takes the outcome of a turn whose settle died before the session write; fails one with no turn', async () => {
    const t = setup();
    const { session, turn } = await t.session();
    const claimed = (await claimTurn(t.store, turn._id, 'dispatcher-1'))!;
    // The settle's first write only: the process died before the session's.
    const firstWrite = { status: 'awaiting_input', endedAt: t.store.clock.now() };
    await turnsOf(t.store).updateOne({ _id: claimed._id }, { $set: firstWrite });
    const orphan = await insertSession(t.store, t.fields);
    const told: string[] = [];
    const changes = { changed: (rootId: string) => void told.push(rootId), watch: async () => () => undefined };
    const deps = { ...t.store, ensureTurnJob: async () => false, changes };
    expect(await recoverTurns(deps)).toEqual({ inserted: [], requeued: [], settled: [] });
    t.advance(31_000);
    const done = await recoverTurns(deps);
    expect(done.settled.sort()).toEqual([session._id, orphan._id].sort());
    expect(told.sort()).toEqual(done.settled.sort());
    expect(await sessionsOf(t.store).findOne({ _id: session._id })).toMatchObject({ status: 'awaiting_input' });
    const failed = { status: 'failed', error: { code: 'interrupted' } };
    expect(await sessionsOf(t.store).findOne({ _id: orphan._id })).toMatchObject(failed);
  });
});
