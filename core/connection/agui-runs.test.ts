/**
 * A fresh AG-UI chat's run over the in-memory stores with the real run start and stream: RUN_STARTED (whose thread id
 * is issued before) does not wait for the thread record's write, and the run's last event does, so the thread can
 * be continued once the run ends.
 * Source: spec/platform-service.md § AG-UI request (rule 1), § Stream and custom events.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { startAguiRun } from './agui-runs.ts';
import type { ServedChat } from './agui-served.ts';
import { aguiThreadsCollection } from './agui-threads.ts';
import { streamRun } from './agui-stream.ts';
import type { ConnectionRecord } from './index.ts';

/** `docs` whose writes of thread records wait until `release()` (a store slow to take them). */
function heldThreadWrites(docs: DocumentStore) {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store: DocumentStore = Object.create(docs);
  store.collection = <T extends BaseDocument>(name: string) => {
    const collection = docs.collection<T>(name);
    if (name !== aguiThreadsCollection) return collection;
    const wrapped = Object.create(collection);
    wrapped.insertOne = async (doc: Parameters<typeof collection.insertOne>[0]) => {
      await held;
      return collection.insertOne(doc);
    };
    return wrapped;
  };
  return { store, release: () => release() };
}

const connection = {
  _id: 'a1:main:chat',
  agentId: 'a1',
  environment: 'main',
  identifier: 'chat',
  protocol: 'agui',
  address: 'addr',
  rate: { perCaller: 60, perEndpoint: 600 },
} as unknown as ConnectionRecord;
const served: ServedChat = {
  orgId: 'o1',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'chat',
  trigger: { id: 'chat', state: 'talk' },
  disabled: false,
  multitask: 'reject',
};
const input = {
  threadId: '',
  runId: 'r1',
  tools: [],
  context: [],
  messages: [{ id: 'm1', role: 'user', content: 'hi' }],
};

describe("a fresh chat's thread record", () => {
  it("is written while RUN_STARTED streams, and before the run's last event", async () => {
    const memory = createMemoryDocumentStore();
    const { store, release } = heldThreadWrites(memory);
    const queued: string[] = [];
    const deps = {
      docs: store,
      objects: createMemoryObjectStore(),
      clock: { now: () => new Date() },
      ids: cryptoIds,
      enqueueTurn: async (turnId: string) => void queued.push(turnId),
      endpointRates: { consume: async () => undefined },
      builds: {} as never,
    };
    const caller = { kind: 'public' as const, rateKey: '127.0.0.1' };
    const run = await startAguiRun(deps, connection, caller, { served, input });
    expect(queued).toEqual([run.turnId]);
    // The turn has ended (a dispatcher ran it): the stream's one read finds it settled.
    await turnsOf(deps).updateOne({ _id: run.turnId }, { $set: { status: 'awaiting_input' } });
    const events: string[] = [];
    const streamed = streamRun(
      { ...deps, sleep: async () => undefined, now: () => 0 },
      run,
      (e) => events.push(e.type),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events[0]).toBe('RUN_STARTED');
    expect(events).not.toContain('RUN_FINISHED');
    expect(await memory.collection(aguiThreadsCollection).findOne({ _id: run.threadId })).toBeNull();
    release();
    await streamed;
    expect(events.at(-1)).toBe('RUN_FINISHED');
    const thread = await memory.collection(aguiThreadsCollection).findOne({ _id: run.threadId });
    expect(thread).toMatchObject({ connectionId: connection._id, sessionId: run.session._id, owner: 'public' });
  });
});
