import { cryptoIds } from '../adapters/runtime/system.ts';
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import { sessionsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { dueRun, fireDueSchedules } from './schedule-firings.ts';

const agent = (cron: string, timezone?: string): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: {
    report: {
      slug: 'report',
      definition: {} as never,
      hooks: {},
      triggers: [{
        id: 'nightly',
        type: 'schedule',
        workflow: 'report',
        state: 'run',
        fields: { cron, ...(timezone ? { timezone } : {}) },
      }],
    },
  },
});

async function world(published: PublishedAgent, publishedAt: string) {
  let n = 0;
  let now = new Date(publishedAt);
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    {
      _id: 'a1:main',
      agentId: 'a1',
      orgId: 'o1',
      name: 'main',
      published: { buildId: 'b1', commitId: 'c1', publishedAt: new Date(publishedAt) },
    } as never,
  );
  await docs.collection(agentCollections.environments).insertOne(
    { _id: 'a1:draft-only', agentId: 'a1', orgId: 'o1', name: 'draft-only', published: null } as never,
  );
  const queued: string[] = [];
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: { now: () => now },
    ids: {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: cryptoIds.sha256Hex,
    },
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
  };
  return {
    deps,
    queued,
    at: (iso: string) => {
      now = new Date(iso);
    },
  };
}

describe('schedule triggers', () => {
  it('fire each due run once, however many sweeps see it, and never a run before the publish', async () => {
    const w = await world(agent('*/5 * * * *'), '2026-11-24T10:03:00.000Z');
    w.at('2026-11-24T10:04:50.000Z');
    expect(await fireDueSchedules(w.deps)).toEqual([]);
    w.at('2026-11-24T10:05:20.000Z');
    const [id] = await fireDueSchedules(w.deps);
    expect(await sessionsOf(w.deps).findOne({ _id: id })).toMatchObject({
      workflow: 'report',
      state: 'run',
      trigger: 'nightly',
      variables: {
        trigger: { id: 'nightly', type: 'schedule', scheduledAt: '2026-11-24T10:05:00.000Z', timezone: 'UTC' },
      },
    });
    w.at('2026-11-24T10:06:00.000Z');
    expect(await fireDueSchedules(w.deps)).toEqual([]);
    w.at('2026-11-24T10:10:40.000Z');
    expect(await fireDueSchedules(w.deps)).toHaveLength(1);
    expect(w.queued).toHaveLength(2);
  });

  it("read the cron in the trigger's time zone", () => {
    // 09:00 in Paris is 08:00 UTC in November.
    expect(
      dueRun('0 9 * * *', 'Europe/Paris', new Date('2026-11-24T07:59:00Z'), new Date('2026-11-24T08:00:30Z'))
        ?.toISOString(),
    ).toBe('2026-11-24T08:00:00.000Z');
    expect(dueRun('0 9 * * *', undefined, new Date('2026-11-24T07:59:00Z'), new Date('2026-11-24T08:00:30Z')))
      .toBeUndefined();
  });

  it('open a run whose claim was taken but whose session was not, at the next sweep, once', async () => {
    const w = await world(agent('*/5 * * * *'), '2026-11-24T10:03:00.000Z');
    const lines: string[] = [];
    // The object store refuses the session's manifest once: the claim is taken, the session not opened.
    let refuse = true;
    const objects = w.deps.objects;
    const deps = {
      ...w.deps,
      log: (line: string) => {
        lines.push(line);
      },
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
    w.at('2026-11-24T10:05:20.000Z');
    expect(await fireDueSchedules(deps)).toEqual([]);
    expect(lines).toEqual([
      '[triggers] schedules of environment "main" of agent a1 were not swept: object store unavailable',
    ]);
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(0);
    w.at('2026-11-24T10:05:35.000Z');
    const [id] = await fireDueSchedules(deps);
    const trigger = { scheduledAt: '2026-11-24T10:05:00.000Z' };
    expect(await sessionsOf(w.deps).findOne({ _id: id })).toMatchObject({ variables: { trigger } });
    expect(await fireDueSchedules(deps)).toEqual([]);
    expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
    expect(w.queued).toHaveLength(1);
  });

  it('go on past an environment whose build cannot be read, naming it once', async () => {
    const w = await world(agent('*/5 * * * *'), '2026-11-24T10:03:00.000Z');
    // The unreadable environment comes first: before, its error ended the sweep before "main".
    const envs = w.deps.docs.collection<{ _id: string; schemaVersion: number }>(agentCollections.environments);
    const main = (await envs.findOne({ _id: 'a1:main' }))!;
    await envs.deleteOne({ _id: 'a1:main' });
    await w.deps.docs.collection(agentCollections.environments).insertOne({
      _id: 'a0:broken',
      agentId: 'a0',
      orgId: 'o1',
      name: 'broken',
      published: { buildId: 'gone', commitId: 'c0', publishedAt: new Date('2026-11-24T10:03:00.000Z') },
    } as never);
    await envs.insertOne(main);
    expect((await envs.find({ published: { $ne: null } })).map((e) => e._id)).toEqual(['a0:broken', 'a1:main']);
    const lines: string[] = [];
    const deps = {
      ...w.deps,
      log: (line: string) => {
        lines.push(line);
      },
      builds: {
        ...w.deps.builds,
        agentOf: async (id: string) => {
          if (id === 'gone') throw new Error('build gone is unreadable');
          return w.deps.builds.agentOf();
        },
      },
    };
    w.at('2026-11-24T10:05:20.000Z');
    expect(await fireDueSchedules(deps)).toHaveLength(1);
    expect(lines).toEqual([
      '[triggers] schedules of environment "broken" of agent a0 were not swept: build gone is unreadable',
    ]);
  });
});
