/**
 * A firing job that runs twice (BullMQ runs a stalled job again) or a firing whose process stopped half-way opens
 * one session: the dispatcher's handlers of `webhook`, `completion` and `keyed-firing` jobs run twice with the same
 * job open nothing new the second time (unkeyed and keyed), and a firing whose turn insert failed after its session
 * was inserted gets its turn queued by the next run, so the session moves on. The document store is the in-memory
 * one; a DocumentStore port wrapper fails one insert where a crash would stop the process.
 * Source: spec/platform-service.md § Firings; docs/architecture.md § Life of a turn (1).
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { DocumentStore, Versioned } from '../ports/document-store.ts';
import { completionFiring, fireCompletion } from '../session/completion.ts';
import { deliveriesCollection, type DeliveryRecord } from '../session/delivery-claims.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from '../session/session-store.ts';
import { settleTurn } from '../session/turn-settle.ts';
import type { WorkflowView } from '../session/workflow-view.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { type KeyedFiringJob, runKeyedFiring } from './keyed-firings.ts';
import { runWebhookJob, type WebhookJob } from './webhook-firings.ts';

const agent = (session?: string): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: {
    intake: {
      slug: 'intake',
      definition: {} as never,
      hooks: {},
      triggers: [{
        id: 'hook',
        type: 'webhook',
        workflow: 'intake',
        state: 'triage',
        fields: { connection: 'github', ...(session ? { session } : {}) },
      }],
    },
  },
});

/**
 * The memory store, whose next insert into `failOn` fails once when `armed` (`mode` fail), or never answers (`mode`
 * stop: the process stopped there, nothing after it runs).
 */
function failingStore(inner: DocumentStore) {
  const trap = { failOn: '', armed: false, mode: 'fail' as 'fail' | 'stop' };
  const docs: DocumentStore = {
    ...inner,
    collection: <T extends { _id: string }>(name: string) => {
      const collection = inner.collection<T>(name);
      const insertOne = async (doc: T & Versioned) => {
        if (trap.armed && name === trap.failOn) {
          trap.armed = false;
          if (trap.mode === 'stop') return new Promise<never>(() => undefined);
          throw new Error('the process stopped here');
        }
        return collection.insertOne(doc);
      };
      return new Proxy(collection, {
        get: (target, key) => (key === 'insertOne' ? insertOne : Reflect.get(target, key, target)),
      });
    },
  };
  return { docs, trap };
}

async function world(published: PublishedAgent) {
  let n = 0;
  const { docs, trap } = failingStore(createMemoryDocumentStore());
  await docs.collection(agentCollections.environments).insertOne({
    _id: 'a1:main',
    agentId: 'a1',
    orgId: 'o1',
    name: 'main',
    published: { buildId: 'b1', commitId: 'c1' },
  } as never);
  const queued: string[] = [];
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-26T09:00:00Z') },
    ids: { ...cryptoIds, newId: () => `id${(n += 1)}` },
    enqueueTurn: async (id: string) => {
      queued.push(id);
    },
    log: () => undefined,
    builds: {
      agentOf: async () => published,
      workflowOf: async () => {
        throw new Error('unused');
      },
    },
    queue: { add: async (_q: string, _n: string, _d: unknown, o?: { jobId?: string }) => o?.jobId ?? 'job' },
  };
  return { deps, queued, trap };
}

const job = (deliveryId: string, body: unknown = { action: 'opened' }): WebhookJob => ({
  agentId: 'a1',
  environment: 'main',
  connection: 'github',
  deliveryId,
  payload: { method: 'POST', contentType: 'application/json', userAgent: null, requestId: null, query: {}, body },
});

describe('a webhook job run twice', () => {
  it('opens one session, unkeyed or keyed, and the second run finds it', async () => {
    const w = await world(agent('{{ body.ticket }}'));
    const first = await runWebhookJob(w.deps, job('d-1'));
    expect(first).toMatchObject({ outcome: 'opened' });
    const firstId = (first as { sessionId: string }).sessionId;
    expect(await runWebhookJob(w.deps, job('d-1'))).toEqual({ outcome: 'existing', sessionId: firstId });
    const keyed = await runWebhookJob(w.deps, job('d-2', { ticket: 'T-1' }));
    // The keyed session is running: a re-run of its own firing is not "busy", it is the same firing.
    const keyedId = (keyed as { sessionId: string }).sessionId;
    const rerun = await runWebhookJob(w.deps, job('d-2', { ticket: 'T-1' }));
    expect(rerun).toEqual({ outcome: 'existing', sessionId: keyedId });
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(2);
    expect(await turnsOf(w.deps).countDocuments({})).toBe(2);
  });

  it('delivered to an open keyed session, delivers one turn', async () => {
    const w = await world(agent('{{ body.ticket }}'));
    const opened = await runWebhookJob(w.deps, job('d-1', { ticket: 'T-1' })) as { sessionId: string };
    await sessionsOf(w.deps).updateOne({ _id: opened.sessionId }, { $set: { status: 'awaiting_input' } });
    const second = job('d-2', { ticket: 'T-1' });
    expect(await runWebhookJob(w.deps, second)).toEqual({ outcome: 'delivered', sessionId: opened.sessionId });
    await sessionsOf(w.deps).updateOne({ _id: opened.sessionId }, { $set: { status: 'awaiting_input' } });
    expect(await runWebhookJob(w.deps, second)).toEqual({ outcome: 'existing', sessionId: opened.sessionId });
    expect(await turnsOf(w.deps).countDocuments({ sessionId: opened.sessionId })).toBe(2);
  });

  it('stopped after its session insert has the turn queued by its second run: the session moves on', async () => {
    const w = await world(agent());
    w.trap.failOn = 'session_turns';
    w.trap.armed = true;
    await expect(runWebhookJob(w.deps, job('d-1'))).rejects.toThrow('the process stopped here');
    const [session] = await sessionsOf(w.deps).find({});
    expect(await turnsOf(w.deps).countDocuments({})).toBe(0);
    expect(await runWebhookJob(w.deps, job('d-1'))).toEqual({ outcome: 'existing', sessionId: session._id });
    const [turn] = await turnsOf(w.deps).find({});
    expect(turn).toMatchObject({ sessionId: session._id, kind: 'delivery', status: 'queued' });
    expect(w.queued).toEqual([turn._id]);
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
  });
});

describe('a completion job run twice', () => {
  it('opens one session per finished turn and trigger', async () => {
    const w = await world(agent());
    const fields = {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: 'report',
      buildId: 'b1',
      commitId: 'c1',
      state: 'wait',
      variables: {},
      lockedVariables: [],
      trigger: 'manual',
      depth: 0,
      inheritedForbid: [],
    };
    const session = await insertSession(w.deps, fields);
    const turn = await insertTurn(w.deps, session, { kind: 'prompt', input: {}, status: 'running' });
    await settleTurn(w.deps, turn, { status: 'succeeded' });
    const ended = (await sessionsOf(w.deps).findOne({ _id: session._id }))!;
    const firing = completionFiring(ended, (await turnsOf(w.deps).findOne({ _id: turn._id }))!)!;
    const published = {
      orgId: 'o1',
      buildId: 'b1',
      commitId: 'c1',
      targets: [{
        view: { slug: 'follow-up', disabled: false } as WorkflowView,
        triggers: [
          { id: 'after', state: 'start', workflow: 'report' },
          { id: 'audit', state: 'start', workflow: 'report' },
        ],
      }],
    };
    expect(await fireCompletion(w.deps, firing, published)).toHaveLength(2);
    expect(await fireCompletion(w.deps, firing, published)).toEqual([]);
    expect(await sessionsOf(w.deps).countDocuments({ workflow: 'follow-up' })).toBe(2);
    expect(await turnsOf(w.deps).countDocuments({ kind: 'delivery' })).toBe(2);
  });
});

describe('a keyed firing (callback) whose process stopped between its claim and its session', () => {
  it('is opened by the job run again, once', async () => {
    const w = await world(agent());
    const keyed: KeyedFiringJob = {
      scope: 'callback:cb1',
      firingId: 'f-1',
      target: {
        orgId: 'o1',
        agentId: 'a1',
        environment: 'main',
        buildId: 'b1',
        commitId: 'c1',
        workflow: 'intake',
        state: 'triage',
        trigger: { id: 'pushed', type: 'callback' },
      },
      firing: { payload: { firingId: 'f-1' }, message: 'A callback fired.' },
    };
    w.trap.failOn = 'sessions';
    w.trap.mode = 'stop';
    w.trap.armed = true;
    void runKeyedFiring(w.deps, keyed);
    const claims = w.deps.docs.collection<DeliveryRecord>(deliveriesCollection);
    for (let i = 0; i < 100 && !(await claims.findOne({}))?.pending; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect((await claims.findOne({}))?.pending).toMatchObject({ open: { firing: { firingKey: expect.any(String) } } });
    expect(await runKeyedFiring(w.deps, keyed)).toMatchObject({ outcome: 'opened' });
    expect((await claims.findOne({}))?.pending).toBeUndefined();
    expect(await runKeyedFiring(w.deps, keyed)).toEqual({ outcome: 'duplicate' });
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
  });
});
