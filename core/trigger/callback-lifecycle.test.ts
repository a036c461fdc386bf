/**
 * The callback lifecycle after activation: a subscription near the `expiresAt` its collection answered is made again
 * by the sweep; one whose trigger is no longer published is ended with `unsubscribe` in a call worker (or cleared
 * when the collection has no such tool), and the address itself is kept.
 */
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { WorkerOutcome, WorkerRunOptions } from '../ports/worker.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import {
  type CallbackActivationJob,
  callbackAddressOf,
  callbackLive,
  runCallbackActivation,
  sweepCallbackTriggers,
} from './callback-addresses.ts';
import { type CallbackDeactivationJob, renewalDue, runCallbackDeactivation } from './callback-lifecycle.ts';

const withTrigger: PublishedAgent = {
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
        fields: { collection: 'tickets', event: 'ticket.closed' },
      }],
    },
  },
};
const without: PublishedAgent = {
  agentPrompt: '',
  skills: {},
  workflows: { events: { slug: 'events', definition: {} as never, hooks: {}, triggers: [] } },
};

async function world() {
  let n = 0;
  let now = new Date('2026-11-24T10:00:00Z');
  const published = { current: withTrigger };
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    { _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never,
  );
  const answers: WorkerOutcome[] = [];
  const runs: WorkerRunOptions[] = [];
  const lines: string[] = [];
  const queued: { name: string; id: string; data: unknown }[] = [];
  const queue = {
    add: async (_q: string, name: string, data: unknown, o?: { jobId?: string }) => {
      queued.push({ name, id: o!.jobId!, data });
      return o!.jobId!;
    },
  } as unknown as JobQueue;
  const deps = {
    docs,
    clock: { now: () => now },
    queue,
    appBaseUrl: 'https://cairn.example',
    ids: {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k).fill(7),
      sha256Hex: async (s: string | Uint8Array) => `d${String(s).length}`.padEnd(40, '0'),
    },
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
  const lifecycle = { ...deps, isLive: (record: Parameters<typeof callbackLive>[1]) => callbackLive(deps, record) };
  return {
    deps,
    lifecycle,
    published,
    answers,
    runs,
    lines,
    queued,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

describe('the callback lifecycle', () => {
  it('renews a subscription within an hour of the expiresAt its collection answered', async () => {
    const w = await world();
    await sweepCallbackTriggers(w.deps);
    w.answers.push({
      ended: 'finished',
      result: { subscription: { id: 's1', expiresAt: '2026-11-27T10:00:00.000Z' } },
    });
    expect(await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob)).toBe('subscribed');
    w.queued.length = 0;
    await sweepCallbackTriggers(w.deps);
    expect(w.queued).toEqual([]);
    w.advance(3 * 24 * 3600_000 - 30 * 60_000);
    await sweepCallbackTriggers(w.deps);
    expect(w.queued.map((j) => j.name)).toEqual(['callback-activate']);
    w.answers.push({
      ended: 'finished',
      result: { subscription: { id: 's1', expiresAt: '2026-11-30T10:00:00.000Z' } },
    });
    expect(await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob)).toBe('subscribed');
    expect(w.lines.at(-1)).toMatch(/renewed its subscription to tickets event ticket.closed$/);
    expect(renewalDue({ fingerprint: '', buildId: 'b1', subscribedAt: new Date(), result: { id: 's1' } }, new Date()))
      .toBe(false);
  });

  it(
    'unsubscribes a trigger no longer published, keeps its address, and clears one whose collection has no ' +
      'unsubscribe tool',
    async () => {
      const w = await world();
      await sweepCallbackTriggers(w.deps);
      w.answers.push({ ended: 'finished', result: { subscription: { id: 's1' } } });
      await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob);
      const record = await callbackAddressOf(
        w.deps,
        { _id: 'a1:main', agentId: 'a1', name: 'main' },
        'events',
        'pushed',
      );
      w.published.current = without;
      w.queued.length = 0;
      await sweepCallbackTriggers(w.deps);
      expect(w.queued.map((j) => j.name)).toEqual(['callback-deactivate']);
      w.answers.push({
        ended: 'failed',
        reason: 'error',
        code: 'subscribe_failed',
        message: 'The tickets service is down.',
      });
      expect(await runCallbackDeactivation(w.lifecycle, w.queued[0].data as CallbackDeactivationJob)).toBe('failed');
      expect(w.runs.at(-1)).toMatchObject({
        task: 'subscribe',
        payload: {
          collection: 'tickets',
          tool: 'unsubscribe',
          input: {
            event: 'ticket.closed',
            callbackUrl: `https://cairn.example/api/callbacks/${record.address}`,
            subscription: { id: 's1' },
          },
        },
      });
      w.answers.push({ ended: 'finished', result: { subscription: null } });
      expect(await runCallbackDeactivation(w.lifecycle, w.queued[0].data as CallbackDeactivationJob)).toBe(
        'unsubscribed',
      );
      expect(await runCallbackDeactivation(w.lifecycle, w.queued[0].data as CallbackDeactivationJob)).toBe('skipped');
      expect(
        (await callbackAddressOf(w.deps, { _id: 'a1:main', agentId: 'a1', name: 'main' }, 'events', 'pushed')).address,
      ).toBe(record.address);
      w.queued.length = 0;
      await sweepCallbackTriggers(w.deps);
      expect(w.queued).toEqual([]);

      w.published.current = withTrigger;
      await sweepCallbackTriggers(w.deps);
      w.answers.push({ ended: 'finished', result: { subscription: { id: 's2' } } });
      await runCallbackActivation(w.deps, w.queued[0].data as CallbackActivationJob);
      w.published.current = without;
      w.answers.push({
        ended: 'failed',
        reason: 'error',
        code: 'tool_not_found',
        message:
          'There is no tool "unsubscribe" in the collection "tickets": the tickets service offers subscribe, callback.',
      });
      expect(await runCallbackDeactivation(w.lifecycle, { record: record._id })).toBe('no_unsubscribe_tool');
      expect(w.lines.at(-1)).toMatch(/has no unsubscribe tool, so its subscription is left to lapse$/);
    },
  );
});
