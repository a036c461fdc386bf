/**
 * Readers that wait on change notifications (./change-watch.ts): an AG-UI stream gets a run's events after each
 * checkpoint and its settle with no timer at all (its sleep never resolves, the safety read never runs unless
 * called), idle streams cost two reads per safety read in all and none between, and a lost notification is made
 * good by the safety read or by a subscription made again. Real turn engine and store host over in-memory stores;
 * the fakes are ports (ModelProvider, SessionChanges, DocumentStore counting its reads).
 * Source: spec/platform-service.md § AG-UI request (rule 3); docs/architecture.md § Life of a turn (4).
 */
import { describe, expect, it } from 'vitest';
import type { BaseEvent } from '@ag-ui/core';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import { runTurn } from './run-turn.ts';
import { claimTurn, insertSession, insertTurn } from './session-store.ts';
import { settleTurn } from './turn-settle.ts';
import { createStoreHost } from './store-host.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';
import { countingDocumentStore } from '../testing/counting-document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { createMemorySessionChanges } from '../testing/memory-session-changes.ts';
import { streamRun } from '../connection/agui-stream.ts';
import { createChangeWatch } from './change-watch.ts';

const talk: StateView = {
  slug: 'talk',
  type: 'agent',
  triggers: ['manual'],
  transitions: [{ to: 'done', description: 'Answered.' }],
  tools: { allow: [], forbid: [] },
  requires: [],
  budget: {},
  before: [],
  after: [],
};
const chat: WorkflowView = {
  slug: 'chat',
  agentPrompt: 'You answer briefly.',
  disabled: false,
  promptCache: false,
  skills: [],
  callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 },
  tools: { allowAlways: [], forbidAlways: [] },
  states: { talk, done: { ...talk, slug: 'done', triggers: [], transitions: [] } },
};
/** A ModelProvider fake (a port) that answers every call with `text`. */
const saying = (text: string): ModelProvider => ({
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'text', text };
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    yield { type: 'finish', reason: 'stop', usage };
  },
});
/** A sleep that never ends: a stream that still polled would hang. */
const never = () => new Promise<void>(() => undefined);

function world() {
  let n = 0;
  const memory = createMemoryDocumentStore();
  const docs = countingDocumentStore(memory);
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = { docs, objects: createMemoryObjectStore(), clock: systemClock, ids };
  const hub = createMemorySessionChanges();
  const watch = createChangeWatch({ docs, changes: hub, safetyMs: 0 });
  const open = async () => {
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
    return { session, turn };
  };
  /** Streams the run of `opened` until it ends or `signal` aborts; the events so far in `events`. */
  const stream = (opened: Awaited<ReturnType<typeof open>>, signal?: AbortSignal) => {
    const events: BaseEvent[] = [];
    const run = {
      threadId: opened.session._id,
      runId: 'r1',
      session: opened.session,
      turnId: opened.turn._id,
      fromSeq: 0,
      openChildren: [],
      since: opened.session.createdAt,
    };
    const done = streamRun({ docs, watch, sleep: never, now: () => 0 }, run, (e) => events.push(e), signal);
    return { events, done };
  };
  return { docs, store, hub, watch, open, stream };
}

/** Lets pending promise callbacks run (no timer is waited on). */
const settleMicrotasks = async () => {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
};

describe('an AG-UI stream waiting on change notifications', () => {
  it("gets the run's text after its checkpoint and RUN_FINISHED after its settle, with no poll", async () => {
    const w = world();
    const opened = await w.open();
    const { events, done } = w.stream(opened);
    await settleMicrotasks();
    expect(await claimTurn(w.store, opened.turn._id, 'test')).not.toBeNull();
    const host = createStoreHost({
      ...w.store,
      models: saying('Hi there.'),
      workflowOf: async () => chat,
      costOf: () => 0,
      serviceTools: async () => [],
      callServiceTool: async () => ({ output: '', isError: true }),
      promptCache: { enabled: false, ttl: '5m' },
      callSignal: () => undefined,
      changes: w.hub,
    }, opened.turn._id);
    await runTurn({ host, now: () => 0 }, opened.turn._id);
    await done;
    expect(w.hub.published.length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(events.find((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toMatchObject({ delta: 'Hi there.' });
    expect(w.hub.watchers()).toBe(0);
  });

  it('100 idle streams cost two reads per safety read in all, and no read between', async () => {
    const w = world();
    const controller = new AbortController();
    const streams = [];
    for (let i = 0; i < 100; i += 1) streams.push(w.stream(await w.open(), controller.signal));
    await settleMicrotasks();
    expect(w.hub.watchers()).toBe(100);
    w.docs.reset();
    await settleMicrotasks();
    expect(w.docs.reads()).toBe(0);
    for (let i = 0; i < 10; i += 1) await w.watch.sweep();
    await settleMicrotasks();
    expect(w.docs.reads()).toBe(20);
    controller.abort();
    await Promise.all(streams.map((s) => s.done));
    expect(w.hub.watchers()).toBe(0);
  });

  it('goes on with safety reads while the queue store does not answer its subscription; ends a late one', async () => {
    const w = world();
    let late: (() => void) | undefined;
    let ended = 0;
    const subscribing = () =>
      new Promise<() => void>((resolve) => {
        late = () =>
          resolve(() => {
            ended += 1;
          });
      });
    const away = { changed: () => undefined, watch: subscribing };
    const watch = createChangeWatch({ docs: w.docs, changes: away, safetyMs: 0, subscribeWaitMs: 5 });
    const opened = await w.open();
    const events: BaseEvent[] = [];
    const run = {
      threadId: opened.session._id,
      runId: 'r1',
      session: opened.session,
      turnId: opened.turn._id,
      fromSeq: 0,
      openChildren: [],
      since: opened.session.createdAt,
    };
    const done = streamRun({ docs: w.docs, watch, sleep: never, now: () => 0 }, run, (e) => events.push(e));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await claimTurn(w.store, opened.turn._id, 'test');
    await settleTurn(w.store, opened.turn, { status: 'failed', error: { code: 'x', message: 'It broke.' } });
    await watch.sweep();
    await done;
    expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    late?.();
    await settleMicrotasks();
    expect(ended).toBe(1);
  });

  it('finishes after a settle whose notification was lost: at the safety read, or subscribed again', async () => {
    for (const recover of ['safety read', 'subscription made again'] as const) {
      const w = world();
      const opened = await w.open();
      const { events, done } = w.stream(opened);
      await settleMicrotasks();
      await claimTurn(w.store, opened.turn._id, 'test');
      w.hub.dropping = true;
      await settleTurn(w.store, opened.turn, { status: 'failed', error: { code: 'x', message: 'It broke.' } });
      w.hub.changed(opened.session._id);
      await settleMicrotasks();
      expect(events.map((e) => e.type), recover).toEqual(['RUN_STARTED']);
      if (recover === 'safety read') await w.watch.sweep();
      else w.hub.lost();
      await done;
      expect(events.map((e) => e.type), recover).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    }
  });
});
