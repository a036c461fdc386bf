/**
 * A fresh AG-UI chat's run over the in-memory stores with the real run start and stream: its refusals are decided
 * before the stream and write nothing; RUN_STARTED (whose thread id is issued before) goes before the session is
 * opened and does not wait for the thread record's write, and the run's last event does, so the thread can be
 * continued once the run ends; a write that fails after RUN_STARTED ends the stream with RUN_ERROR carrying the code
 * and message its HTTP status would have had, leaving nothing behind.
 * Source: spec/platform-service.md § AG-UI request (rule 1), § Stream and custom events, § Errors;
 * docs/decisions.md D24 § 3.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { startAguiRun } from './agui-runs.ts';
import type { ServedChat } from './agui-served.ts';
import { aguiThreadsCollection } from './agui-threads.ts';
import type { AguiRun } from './agui-run-model.ts';
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

/** The run's deps over `docs`; each queued turn is settled at once (as if a dispatcher ran it) unless `refuse`. */
function runDeps(docs: DocumentStore, refuse?: Error) {
  const queued: string[] = [];
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date() },
    ids: cryptoIds,
    enqueueTurn: async (turnId: string) => {
      if (refuse) throw refuse;
      queued.push(turnId);
      await turnsOf({ docs }).updateOne({ _id: turnId }, { $set: { status: 'awaiting_input' } });
    },
    // The endpoint counters, a port: every call allowed (the counting is endpoint-rates.test.ts's).
    endpointRates: { consume: async () => undefined },
    builds: {} as never,
  };
  return { deps, queued };
}

/** Streams `run` to its end. @returns the events and what the stream logged as errors */
async function streamed(deps: ReturnType<typeof runDeps>['deps'], run: AguiRun) {
  const events: Record<string, unknown>[] = [];
  const errors: Record<string, unknown>[] = [];
  const logger = { error: (fields: Record<string, unknown>) => void errors.push(fields) } as never;
  const done = streamRun({ ...deps, sleep: async () => undefined, now: () => 0, logger }, run, (e) => {
    events.push(e as unknown as Record<string, unknown>);
  });
  return { events, errors, done };
}

const caller = { kind: 'public' as const, rateKey: '127.0.0.1' };

describe('a fresh chat', () => {
  it('writes nothing before RUN_STARTED, and its thread record as the run streams, before its end', async () => {
    const memory = createMemoryDocumentStore();
    const { store, release } = heldThreadWrites(memory);
    const { deps, queued } = runDeps(store);
    const run = await startAguiRun(deps, connection, caller, { served, input });
    expect(queued).toEqual([]);
    expect(await sessionsOf(deps).find({})).toEqual([]);
    const { events, done } = await streamed(deps, run);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: run.threadId });
    expect(events[1]).toMatchObject({ type: 'CUSTOM', name: 'platform.thread_secret' });
    expect(events.map((e) => e.type)).not.toContain('RUN_FINISHED');
    const [session] = await sessionsOf(deps).find({});
    expect(queued).toHaveLength(1);
    expect(await memory.collection(aguiThreadsCollection).findOne({ _id: run.threadId })).toBeNull();
    release();
    await done;
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
    const thread = await memory.collection(aguiThreadsCollection).findOne({ _id: run.threadId });
    expect(thread).toMatchObject({ connectionId: connection._id, sessionId: session!._id, owner: 'public' });
  });

  it('ends with RUN_ERROR carrying the code and message of a write refused after RUN_STARTED', async () => {
    const { deps } = runDeps(createMemoryDocumentStore(), new Error('queue store down'));
    const run = await startAguiRun(deps, connection, caller, { served, input });
    const { events, errors, done } = await streamed(deps, run);
    await done;
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: run.threadId });
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'queue_unavailable',
      message: expect.stringMatching(/\S/),
    });
    expect(errors).toEqual([expect.objectContaining({ code: 'queue_unavailable' })]);
    expect(await sessionsOf(deps).find({})).toEqual([]);
    expect(await turnsOf(deps).find({})).toEqual([]);
    expect(await deps.docs.collection(aguiThreadsCollection).find({})).toEqual([]);
  });

  it("ends with RUN_ERROR internal, the unexpected answer's code and message, when a write throws", async () => {
    const memory = createMemoryDocumentStore();
    const failing: DocumentStore = Object.create(memory);
    failing.collection = <T extends BaseDocument>(name: string) => {
      const collection = memory.collection<T>(name);
      const wrapped = Object.create(collection);
      wrapped.insertOne = async () => {
        throw new Error('disk full');
      };
      return name === 'sessions' ? wrapped : collection;
    };
    const { deps } = runDeps(failing);
    const { events, errors, done } = await streamed(
      deps,
      await startAguiRun(deps, connection, caller, { served, input }),
    );
    await done;
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'internal',
      message: 'The request failed unexpectedly; try again, and tell the operator if it persists.',
    });
    expect(errors).toEqual([expect.objectContaining({ err: expect.stringContaining('disk full') })]);
    expect(await memory.collection(aguiThreadsCollection).find({})).toEqual([]);
  });

  it('is refused busy before its stream, writing nothing, while the open chat of its session key runs', async () => {
    const { deps, queued } = runDeps(createMemoryDocumentStore());
    const keyed = { ...served, sessionKey: 'one-chat' };
    const first = await startAguiRun(deps, connection, caller, { served: keyed, input });
    await streamed(deps, first).then((s) => s.done);
    const [session] = await sessionsOf(deps).find({});
    await sessionsOf(deps).updateOne({ _id: session!._id }, { $set: { status: 'running' } });
    await expect(startAguiRun(deps, connection, caller, { served: keyed, input })).rejects.toMatchObject({
      code: 'session_busy',
      status: 409,
    });
    expect(queued).toHaveLength(1);
    expect(await sessionsOf(deps).find({})).toHaveLength(1);
  });
});
