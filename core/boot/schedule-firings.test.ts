import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import { sessionsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { dueRun, fireDueSchedules } from './schedule-firings.ts';

const agent = (cron: string, timezone?: string): PublishedAgent => ({
  agentPrompt: '', skills: {},
  workflows: { report: { slug: 'report', definition: {} as never, hooks: {}, triggers: [{ id: 'nightly', type: 'schedule', workflow: 'report', state: 'run', fields: { cron, ...(timezone ? { timezone } : {}) } }] } },
});

async function world(published: PublishedAgent, publishedAt: string) {
  let n = 0;
  let now = new Date(publishedAt);
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne({ _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1', publishedAt: new Date(publishedAt) } } as never);
  await docs.collection(agentCollections.environments).insertOne({ _id: 'a1:draft-only', agentId: 'a1', orgId: 'o1', name: 'draft-only', published: null } as never);
  const queued: string[] = [];
  const deps = {
    docs, objects: createMemoryObjectStore(), clock: { now: () => now }, ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueueTurn: async (id: string) => { queued.push(id); }, log: () => undefined,
    builds: { agentOf: async () => published, workflowOf: async () => { throw new Error('unused'); } },
  };
  return { deps, queued, at: (iso: string) => { now = new Date(iso); } };
}

describe('schedule triggers', () => {
  it('fire each due run once, however many sweeps see it, and never a run before the publish', async () => {
    const w = await world(agent('*/5 * * * *'), '2026-11-24T10:03:00.000Z');
    w.at('2026-11-24T10:04:50.000Z');
    expect(await fireDueSchedules(w.deps)).toEqual([]);
    w.at('2026-11-24T10:05:20.000Z');
    const [id] = await fireDueSchedules(w.deps);
    expect(await sessionsOf(w.deps).findOne({ _id: id })).toMatchObject({ workflow: 'report', state: 'run', trigger: 'nightly', variables: { trigger: { id: 'nightly', type: 'schedule', scheduledAt: '2026-11-24T10:05:00.000Z', timezone: 'UTC' } } });
    w.at('2026-11-24T10:06:00.000Z');
    expect(await fireDueSchedules(w.deps)).toEqual([]);
    w.at('2026-11-24T10:10:40.000Z');
    expect(await fireDueSchedules(w.deps)).toHaveLength(1);
    expect(w.queued).toHaveLength(2);
  });

  it('read the cron in the trigger\'s time zone', () => {
    // 09:00 in Paris is 08:00 UTC in November.
    expect(dueRun('0 9 * * *', 'Europe/Paris', new Date('2026-11-24T07:59:00Z'), new Date('2026-11-24T08:00:30Z'))?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
    expect(dueRun('0 9 * * *', undefined, new Date('2026-11-24T07:59:00Z'), new Date('2026-11-24T08:00:30Z'))).toBeUndefined();
  });
});
