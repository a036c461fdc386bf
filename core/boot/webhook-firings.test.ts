import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { runWebhookFiring } from './webhook-firings.ts';

const trigger = (workflow: string, connection: string) => ({ id: `${workflow}-hook`, type: 'webhook' as const, workflow, state: 'triage', fields: { connection } });
const agentWith = (...triggers: ReturnType<typeof trigger>[]): PublishedAgent => ({
  agentPrompt: '', skills: {},
  workflows: Object.fromEntries(triggers.map((t) => [t.workflow, { slug: t.workflow, definition: {} as never, hooks: {}, triggers: [t] }])),
});

async function world(agent: PublishedAgent) {
  let n = 0;
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne({ _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never);
  const queued: string[] = [];
  const deps = {
    docs, objects: createMemoryObjectStore(), clock: systemClock, ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueueTurn: async (id: string) => { queued.push(id); },
    builds: { agentOf: async () => agent, workflowOf: async () => { throw new Error('unused'); } },
  };
  return { deps, queued };
}

const delivery = { agentId: 'a1', environment: 'main', connection: 'github', deliveryId: 'd-1', payload: { method: 'POST', contentType: 'application/json', userAgent: null, requestId: null, query: {}, body: { action: 'opened' } } };

describe('webhook firings', () => {
  it('open a session of the workflow whose webhook trigger names the connection, with the payload as its trigger', async () => {
    const w = await world(agentWith(trigger('intake', 'github'), trigger('other', 'stripe')));
    const id = await runWebhookFiring(w.deps, delivery);
    expect(await sessionsOf(w.deps).findOne({ _id: id })).toMatchObject({ workflow: 'intake', state: 'triage', buildId: 'b1', orgId: 'o1', variables: { trigger: { id: 'intake-hook', type: 'webhook', deliveryId: 'd-1', body: { action: 'opened' } } } });
    expect(await turnsOf(w.deps).countDocuments({ sessionId: id, kind: 'delivery', status: 'queued' })).toBe(1);
    expect(w.queued).toHaveLength(1);
  });

  it('open nothing when no trigger or two triggers name the connection, saying which', async () => {
    await expect(runWebhookFiring((await world(agentWith(trigger('other', 'stripe')))).deps, delivery)).rejects.toMatchObject({ code: 'trigger_not_found' });
    const both = await world(agentWith(trigger('intake', 'github'), trigger('second', 'github')));
    await expect(runWebhookFiring(both.deps, delivery)).rejects.toMatchObject({ code: 'connection_conflict', message: expect.stringMatching(/intake .* and second/) });
    expect(both.queued).toEqual([]);
  });
});
