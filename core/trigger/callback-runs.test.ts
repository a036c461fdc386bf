import { cryptoIds } from '../adapters/runtime/system.ts';
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { WorkerOutcome, WorkerRunOptions } from '../ports/worker.ts';
import { sessionsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  type CallbackActivationJob,
  callbackAddressOf,
  runCallbackActivation,
  sweepCallbackTriggers,
} from './callback-addresses.ts';
import { type CallbackRequest, callbackTargetOf, runCallbackDelivery } from './callback-runs.ts';

const agent = (event = 'ticket.closed'): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: {
    events: {
      slug: 'events',
      definition: {} as never,
      hooks: {},
      triggers: [{
        id: 'pushed',
        type: 'callback',
        workflow: 'events',
        state: 'received',
        fields: { collection: 'tickets', event, arguments: { project: 'demo' } },
      }],
    },
  },
});

async function world(published: { current: PublishedAgent }) {
  let n = 0;
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    {
      _id: 'a1:main',
      agentId: 'a1',
      orgId: 'o1',
      name: 'main',
      published: { buildId: 'b1', commitId: 'c1', publishedAt: new Date('2026-11-24T10:00:00Z') },
    } as never,
  );
  const answers: WorkerOutcome[] = [];
  const runs: WorkerRunOptions[] = [];
  const lines: string[] = [];
  const queued: { name: string; id: string; data: unknown }[] = [];
  const queue = {
    add: async (_q: string, name: string, data: unknown, o?: { jobId?: string }) => {
      if (!queued.some((j) => j.id === o?.jobId)) queued.push({ name, id: o!.jobId!, data });
      return o!.jobId!;
    },
  } as unknown as JobQueue;
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-24T10:01:00Z') },
    queue,
    appBaseUrl: 'https://cairn.example/',
    ids: { ...cryptoIds, newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k).fill(n += 1) },
    enqueueTurn: async () => undefined,
    log: (line: string) => lines.push(line),
    builds: {
      agentOf: async () => published.current,
      workflowOf: async () => {
        throw new Error('unused');
      },
    },
    launcher: {
      reserve: async () => ({ release: () => undefined }),
      run: async (options: WorkerRunOptions) => {
        runs.push(options);
        return answers.shift()!;
      },
    },
    catalog: { tools: async () => [], call: async () => ({ output: null, isError: false }) },
    callLimits: { memoryMb: 512, wallTimeSeconds: 300 },
  };
  return { deps, answers, runs, lines, queued };
}

const request: CallbackRequest = {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'user-agent': null, 'x-request-id': null },
  query: {},
  body: { id: 'closed-7' },
};

describe('callback triggers', () => {
  it(
    'keep one address per trigger, activate through subscribe with the ' +
      'callback URL, and not again once subscribed',
    async () => {
      const w = await world({ current: agent() });
      await sweepCallbackTriggers(w.deps);
      await sweepCallbackTriggers(w.deps);
      expect(w.queued).toHaveLength(1);
      expect(w.queued[0].id).not.toContain(':');
      const record = await callbackAddressOf(
        w.deps,
        { _id: 'a1:main', agentId: 'a1', name: 'main' },
        'events',
        'pushed',
      );
      expect(record.address).toMatch(/^[A-Za-z0-9_-]{32}$/);
      w.answers.push({ ended: 'finished', result: { subscription: { subscriptionId: 's1' } } });
      expect(await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob)).toBe('subscribed');
      expect(w.runs[0]).toMatchObject({
        kind: 'call',
        task: 'subscribe',
        payload: {
          collection: 'tickets',
          tool: 'subscribe',
          input: {
            event: 'ticket.closed',
            arguments: { project: 'demo' },
            callbackUrl: `https://cairn.example/api/callbacks/${record.address}`,
          },
        },
      });
      expect(await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob)).toBe('unchanged');
      w.queued.length = 0;
      await sweepCallbackTriggers(w.deps);
      expect(w.queued).toHaveLength(0);
    },
  );

  it('subscribe again when the event changes (same address), logging a failed activation once', async () => {
    const published = { current: agent() };
    const w = await world(published);
    const job = { agentId: 'a1', environment: 'main', workflow: 'events', trigger: 'pushed' };
    w.answers.push({ ended: 'finished', result: { subscription: null } });
    await runCallbackActivation(w.deps, job);
    const { address } = await callbackAddressOf(
      w.deps,
      { _id: 'a1:main', agentId: 'a1', name: 'main' },
      'events',
      'pushed',
    );
    published.current = agent('ticket.opened');
    const failed: WorkerOutcome = {
      ended: 'failed',
      reason: 'error',
      code: 'subscribe_failed',
      message: 'event unknown',
    };
    w.answers.push(failed, failed, { ended: 'finished', result: { subscription: null } });
    expect([
      await runCallbackActivation(w.deps, job),
      await runCallbackActivation(w.deps, job),
      await runCallbackActivation(w.deps, job),
    ]).toEqual(['failed', 'failed', 'subscribed']);
    expect(w.lines.filter((l) => l.includes('failed (event unknown)'))).toHaveLength(1);
    expect(
      (await callbackAddressOf(w.deps, { _id: 'a1:main', agentId: 'a1', name: 'main' }, 'events', 'pushed')).address,
    ).toBe(address);
  });

  it('open one session per firing id across deliveries, and serve nothing once the trigger is gone', async () => {
    const published = { current: agent() };
    const w = await world(published);
    const { address } = await callbackAddressOf(
      w.deps,
      { _id: 'a1:main', agentId: 'a1', name: 'main' },
      'events',
      'pushed',
    );
    const answer: WorkerOutcome = {
      ended: 'finished',
      result: { firings: [{ id: 'closed-7', payload: { n: 7 } }, { payload: { n: 8 } }] },
    };
    w.answers.push(answer, answer);
    expect(await runCallbackDelivery(w.deps, { address, deliveryId: 'd1', request })).toHaveLength(2);
    expect(await runCallbackDelivery(w.deps, { address, deliveryId: 'd2', request })).toHaveLength(1);
    const sessions = await sessionsOf(w.deps).find({});
    expect(sessions.map((s) => (s.variables as { trigger: { firingId: string } }).trigger.firingId).sort()).toEqual([
      'closed-7',
      'd1-1',
      'd2-1',
    ]);
    expect(w.runs[0]).toMatchObject({
      task: 'callback',
      payload: { collection: 'tickets', tool: 'callback', input: { event: 'ticket.closed', request } },
    });
    expect(w.lines.at(-1)).toBe(
      '[triggers] callback trigger pushed of events in a1/main: delivery d2 gave 2 firing(s), 1 new',
    );
    published.current = { ...agent(), workflows: {} };
    expect(await callbackTargetOf(w.deps, address)).toBeNull();
    expect(await callbackTargetOf(w.deps, 'unknown')).toBeNull();
    await expect(runCallbackDelivery(w.deps, { address, deliveryId: 'd3', request })).rejects.toMatchObject({
      code: 'callback_target_gone',
    });
  });
});
