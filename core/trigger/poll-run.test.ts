import { cryptoIds } from '../adapters/runtime/system.ts';
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { WorkerOutcome, WorkerRunOptions } from '../ports/worker.ts';
import { sessionsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { runPoll } from './poll-run.ts';
import { serviceCallBroker } from './poll-service-call.ts';
import { dueSlot, enqueueDuePolls, isDue, type PollJob } from './poll-sweep.ts';

const agent = (args: Record<string, unknown> = { state: 'open' }, interval?: number): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: {
    triage: {
      slug: 'triage',
      definition: {} as never,
      hooks: {},
      triggers: [{
        id: 'new-tickets',
        type: 'polling',
        workflow: 'triage',
        state: 'read',
        fields: {
          collection: 'tickets',
          tool: 'list_tickets',
          arguments: args,
          ...(interval ? { interval_minutes: interval } : {}),
        },
      }],
    },
  },
});

/** A world with one published environment; the fake launcher answers each poll with `answers` in turn. */
async function world(published: { current: PublishedAgent }) {
  let n = 0;
  let now = new Date('2026-11-24T10:00:30.000Z');
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    {
      _id: 'a1:main',
      agentId: 'a1',
      orgId: 'o1',
      name: 'main',
      published: { buildId: 'b1', commitId: 'c1', publishedAt: now },
    } as never,
  );
  const answers: WorkerOutcome[] = [];
  const runs: WorkerRunOptions[] = [];
  const lines: string[] = [];
  const queued: { id: string; data: unknown }[] = [];
  const queue = {
    add: async (_q: string, _n: string, data: unknown, o?: { jobId?: string }) => {
      if (!queued.some((j) => j.id === o?.jobId)) queued.push({ id: o!.jobId!, data });
      return o!.jobId!;
    },
  } as unknown as JobQueue;
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => now },
    queue,
    ids: { ...cryptoIds, newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k) },
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
  const job = (slot: number): PollJob => ({
    agentId: 'a1',
    environment: 'main',
    workflow: 'triage',
    trigger: 'new-tickets',
    slot,
  });
  const items = (...ids: string[]): WorkerOutcome => ({
    ended: 'finished',
    result: { items: ids.map((id) => ({ id, item: { id } })) },
  });
  return {
    deps,
    answers,
    runs,
    lines,
    queued,
    job,
    items,
    at: (iso: string) => {
      now = new Date(iso);
    },
  };
}

describe('due slots', () => {
  it('count whole intervals since the epoch; a trigger is due in a slot later than its last', () => {
    expect(dueSlot(new Date('1970-01-01T00:04:59Z'), 5)).toBe(0);
    expect(dueSlot(new Date('1970-01-01T00:05:00Z'), 5)).toBe(1);
    expect(dueSlot(new Date('1970-01-01T02:00:00Z'), 1)).toBe(120);
    expect([isDue(undefined, 3), isDue(2, 3), isDue(3, 3), isDue(4, 3)]).toEqual([true, true, false, false]);
  });

  it('are enqueued once per trigger and slot (job ids without ":"), and not after the slot was polled', async () => {
    const w = await world({ current: agent({}, 5) });
    await enqueueDuePolls(w.deps);
    await enqueueDuePolls(w.deps);
    expect(w.queued).toHaveLength(1);
    expect(w.queued[0].id).not.toContain(':');
    const slot = dueSlot(new Date('2026-11-24T10:00:30.000Z'), 5);
    expect(w.queued[0].data).toEqual(w.job(slot));
    w.answers.push(w.items());
    await runPoll(w.deps, w.job(slot));
    w.queued.length = 0;
    await enqueueDuePolls(w.deps);
    expect(w.queued).toHaveLength(0);
    w.at('2026-11-24T10:05:00.000Z');
    await enqueueDuePolls(w.deps);
    expect(w.queued.map((j) => (j.data as PollJob).slot)).toEqual([slot + 1]);
  });
});

describe('a poll', () => {
  it('takes a baseline first, then fires each new item once with the item in the trigger variable', async () => {
    const w = await world({ current: agent() });
    w.answers.push(w.items('t1', 't2'), w.items('t1', 't2', 't3'), w.items('t3', 't4'));
    expect(await runPoll(w.deps, w.job(1))).toEqual({ ended: 'baseline', items: 2 });
    const second = await runPoll(w.deps, w.job(2));
    const third = await runPoll(w.deps, w.job(3));
    expect(second).toMatchObject({ ended: 'fired', sessions: [expect.any(String)] });
    expect(third).toMatchObject({ ended: 'fired', sessions: [expect.any(String)] });
    const sessions = await sessionsOf(w.deps).find({});
    expect(sessions.map((s) => (s.variables as { trigger: { itemId: string } }).trigger.itemId).sort()).toEqual([
      't3',
      't4',
    ]);
    expect(sessions[0]).toMatchObject({
      workflow: 'triage',
      state: 'read',
      trigger: 'new-tickets',
      variables: { trigger: { id: 'new-tickets', type: 'polling', collection: 'tickets', tool: 'list_tickets' } },
    });
    expect(w.runs[0]).toMatchObject({
      kind: 'call',
      task: 'poll',
      payload: { collection: 'tickets', tool: 'list_tickets', input: { state: 'open' } },
    });
  });

  it('claims its slot once: a second run of the same or an older slot does nothing', async () => {
    const w = await world({ current: agent() });
    w.answers.push(w.items('t1'));
    await runPoll(w.deps, w.job(5));
    expect(await runPoll(w.deps, w.job(5))).toEqual({ ended: 'skipped' });
    expect(await runPoll(w.deps, w.job(4))).toEqual({ ended: 'skipped' });
    expect(w.runs).toHaveLength(1);
  });

  it(
    "logs a failure once per trigger with the service's reason, tries again at the next slot, and says when it " +
      'recovers',
    async () => {
      const w = await world({ current: agent() });
      const failed: WorkerOutcome = {
        ended: 'failed',
        reason: 'error',
        code: 'poll_failed',
        message: 'The tickets service could not be reached: connection refused. Try again later.',
      };
      w.answers.push(w.items('t1'), failed, failed, w.items('t1', 't2'));
      await runPoll(w.deps, w.job(1));
      expect(await runPoll(w.deps, w.job(2))).toMatchObject({
        ended: 'failed',
        reason: expect.stringMatching(/connection refused/),
      });
      await runPoll(w.deps, w.job(3));
      expect(w.lines.filter((l) => l.includes('failed'))).toEqual([
        expect.stringMatching(
          new RegExp(
            String.raw`^\[triggers\] polling trigger new-tickets of triage in a1\/main: the poll of ` +
              String.raw`tickets.list_tickets failed \(.*connection refused.*\); trying again at the ` +
              String.raw`next due slot$`,
          ),
        ),
      ]);
      expect(await runPoll(w.deps, w.job(4))).toMatchObject({ ended: 'fired', sessions: [expect.any(String)] });
      expect(w.lines.at(-1)).toMatch(/succeed again/);
    },
  );

  it("takes a new baseline when the trigger's call changed, and skips a trigger no longer published", async () => {
    const published = { current: agent({ state: 'open' }) };
    const w = await world(published);
    w.answers.push(w.items('t1'), w.items('t1', 't2'));
    await runPoll(w.deps, w.job(1));
    published.current = agent({ state: 'closed' });
    expect(await runPoll(w.deps, w.job(2))).toEqual({ ended: 'baseline', items: 2 });
    published.current = { ...agent(), workflows: {} };
    expect(await runPoll(w.deps, w.job(3))).toEqual({ ended: 'skipped' });
  });

  it('forgets the baseline of a trigger no longer published, so a restored one takes a new first poll', async () => {
    const published = { current: agent() };
    const w = await world(published);
    w.answers.push(w.items('t1'), w.items('t1', 't2'), w.items('t1', 't2', 't3'));
    expect(await runPoll(w.deps, w.job(1))).toEqual({ ended: 'baseline', items: 1 });
    published.current = { ...agent(), workflows: {} };
    await enqueueDuePolls(w.deps);
    published.current = agent();
    // t2 appeared while the trigger was gone: the restored trigger's first poll records it, and fires nothing.
    expect(await runPoll(w.deps, w.job(2))).toEqual({ ended: 'baseline', items: 2 });
    expect(await runPoll(w.deps, w.job(3))).toMatchObject({ ended: 'fired', sessions: [expect.any(String)] });
  });
});

describe('the poll sweep and poll items', () => {
  it('go on past an environment whose build cannot be read, naming it and keeping its baselines', async () => {
    const published = { current: agent() };
    const w = await world(published);
    const envs = w.deps.docs.collection<{ _id: string; schemaVersion: number }>(agentCollections.environments);
    const main = (await envs.findOne({ _id: 'a1:main' }))!;
    await envs.deleteOne({ _id: 'a1:main' });
    await envs.insertOne({
      _id: 'a0:broken',
      agentId: 'a0',
      orgId: 'o1',
      name: 'broken',
      published: { buildId: 'gone', commitId: 'c0', publishedAt: new Date() },
    } as never);
    await envs.insertOne(main);
    const polls = w.deps.docs.collection('trigger_polls');
    const brokenState = { _id: 'a0:broken/triage/new-tickets', schemaVersion: 1, lastSlot: 1, baseline: '{}' };
    await polls.insertOne(brokenState as never);
    const agentOf = async (id: string) => {
      if (id === 'gone') throw new Error('build gone is unreadable');
      return published.current;
    };
    const deps = { ...w.deps, builds: { ...w.deps.builds, agentOf } };
    await enqueueDuePolls(deps);
    expect(w.queued.map((j) => (j.data as PollJob).environment)).toEqual(['main']);
    expect(w.lines).toEqual([
      '[triggers] polls of environment "broken" of agent a0 were not swept: build gone is unreadable',
    ]);
    expect(await polls.findOne({ _id: 'a0:broken/triage/new-tickets' })).toMatchObject({ baseline: '{}' });
  });

  it('open an item claimed by a poll that stopped before opening it, at the next poll, once', async () => {
    const w = await world({ current: agent() });
    w.answers.push(w.items('t1'), w.items('t1', 't2'), w.items('t1', 't2'), w.items('t1', 't2'));
    await runPoll(w.deps, w.job(1));
    const objects = w.deps.objects;
    let refuse = true;
    const deps = {
      ...w.deps,
      objects: {
        ...objects,
        put: async (...args: Parameters<typeof objects.put>) => {
          if (refuse) {
            refuse = false;
            throw new Error('object store unavailable');
          }
          return objects.put(...args);
        },
      },
    };
    await expect(runPoll(deps, w.job(2))).rejects.toThrow('object store unavailable');
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(0);
    expect(await runPoll(deps, w.job(3))).toMatchObject({ ended: 'fired', sessions: [expect.any(String)] });
    expect(await runPoll(deps, w.job(4))).toEqual({ ended: 'fired', sessions: [] });
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
  });
});

describe('the broker of a service task', () => {
  it('makes only the call the worker was started for and logs a refusal of anything else', async () => {
    const lines: string[] = [];
    const calls: unknown[] = [];
    const call = { collection: 'tickets', tool: 'list_tickets', input: { state: 'open' } };
    const broker = serviceCallBroker(
      {
        catalog: {
          tools: async () => [],
          call: async (...a: unknown[]) => {
            calls.push(a);
            return { output: 'ok', isError: false };
          },
        },
        log: (l) => lines.push(l),
      },
      call,
      { subject: 'call poll new-tickets', caller: { orgId: 'org-a', agentId: 'desk' } },
    );
    expect(await broker('service.call', call)).toEqual({ output: 'ok', isError: false });
    await expect(broker('service.call', { ...call, tool: 'delete_ticket' })).rejects.toMatchObject({
      code: 'operation_refused',
    });
    await expect(broker('turn.loadTurn', [])).rejects.toMatchObject({ code: 'operation_refused' });
    // The call carries the trigger's organization and agent (from the records), never anything the worker said.
    expect(calls).toEqual([['tickets', 'list_tickets', { state: 'open' }, { orgId: 'org-a', agentId: 'desk' }]]);
    expect(lines).toEqual([
      '[worker] refused service.call for call poll new-tickets',
      '[worker] refused turn.loadTurn for call poll new-tickets',
    ]);
  });
});
