import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { runWebhookFiring, runWebhookJob, WEBHOOK_BUSY_ATTEMPTS, webhookRetryDelayMs } from './webhook-firings.ts';

const trigger = (workflow: string, connection: string, session?: string) => ({
  id: `${workflow}-hook`,
  type: 'webhook' as const,
  workflow,
  state: 'triage',
  fields: { connection, ...(session ? { session } : {}) },
});
const agentWith = (...triggers: ReturnType<typeof trigger>[]): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: Object.fromEntries(
    triggers.map((t) => [t.workflow, { slug: t.workflow, definition: {} as never, hooks: {}, triggers: [t] }]),
  ),
});

async function world(agent: PublishedAgent) {
  let n = 0;
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    { _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never,
  );
  const queued: string[] = [];
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: systemClock,
    ids: {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: cryptoIds.sha256Hex,
    },
    enqueueTurn: async (id: string) => {
      queued.push(id);
    },
    builds: {
      agentOf: async () => agent,
      workflowOf: async () => {
        throw new Error('unused');
      },
    },
  };
  return { deps, queued };
}

const delivery = {
  agentId: 'a1',
  environment: 'main',
  connection: 'github',
  deliveryId: 'd-1',
  payload: {
    method: 'POST',
    contentType: 'application/json',
    userAgent: null,
    requestId: null,
    query: {},
    body: { action: 'opened' },
  },
};

describe('webhook firings', () => {
  it(
    'open a session of the workflow whose webhook trigger names the ' + 'connection, with the payload as its trigger',
    async () => {
      const w = await world(agentWith(trigger('intake', 'github'), trigger('other', 'stripe')));
      const id = await runWebhookFiring(w.deps, delivery);
      expect(await sessionsOf(w.deps).findOne({ _id: id })).toMatchObject({
        workflow: 'intake',
        state: 'triage',
        buildId: 'b1',
        orgId: 'o1',
        variables: { trigger: { id: 'intake-hook', type: 'webhook', deliveryId: 'd-1', body: { action: 'opened' } } },
      });
      expect(await turnsOf(w.deps).countDocuments({ sessionId: id, kind: 'delivery', status: 'queued' })).toBe(1);
      expect(w.queued).toHaveLength(1);
    },
  );

  it('open nothing when no trigger or two triggers name the connection, saying which', async () => {
    await expect(runWebhookFiring((await world(agentWith(trigger('other', 'stripe')))).deps, delivery)).rejects
      .toMatchObject({ code: 'trigger_not_found' });
    const both = await world(agentWith(trigger('intake', 'github'), trigger('second', 'github')));
    await expect(runWebhookFiring(both.deps, delivery)).rejects.toMatchObject({
      code: 'connection_conflict',
      message: expect.stringMatching(/intake .* and second/),
    });
    expect(both.queued).toEqual([]);
  });

  it('send deliveries whose session key expression gives one key to one session, and others to their own', async () => {
    const w = await world(agentWith(trigger('intake', 'github', 'ticket-{{ body.ticket }}')));
    const keyed = (deliveryId: string, ticket?: string) => ({
      ...delivery,
      deliveryId,
      payload: { ...delivery.payload, body: ticket === undefined ? {} : { ticket } },
    });
    const first = await runWebhookFiring(w.deps, keyed('d-1', 'T-1'));
    expect(await sessionsOf(w.deps).findOne({ _id: first })).toMatchObject({ sessionKey: 'ticket-T-1' });
    await expect(runWebhookFiring(w.deps, keyed('d-2', 'T-1'))).rejects.toMatchObject({ code: 'session_busy' });
    await sessionsOf(w.deps).updateOne({ _id: first }, { $set: { status: 'awaiting_input' } });
    expect(await runWebhookFiring(w.deps, keyed('d-2', 'T-1'))).toBe(first);
    expect(await turnsOf(w.deps).countDocuments({ sessionId: first, kind: 'delivery' })).toBe(2);
    expect(await runWebhookFiring(w.deps, keyed('d-3', 'T-2'))).not.toBe(first);
    const keyless = await runWebhookFiring(w.deps, keyed('d-4'));
    expect((await sessionsOf(w.deps).findOne({ _id: keyless }))?.sessionKey).toBeUndefined();
  });

  it(
    'queue a delivery whose session is busy again with a growing delay, and drop it after the last try with a ' +
      'line naming trigger and key',
    async () => {
      const w = await world(agentWith(trigger('intake', 'github', '{{ body.ticket }}')));
      const added: {
        queue: string;
        name: string;
        data: Record<string, unknown>;
        options?: { jobId?: string; delayMs?: number };
      }[] = [];
      const lines: string[] = [];
      const deps = {
        ...w.deps,
        queue: {
          add: async (queue: string, name: string, data: unknown, options?: { jobId?: string; delayMs?: number }) => {
            added.push({ queue, name, data: data as Record<string, unknown>, options });
            return options?.jobId ?? 'x';
          },
        },
        log: (line: string) => {
          lines.push(line);
        },
      };
      const job = {
        ...delivery,
        deliveryId: 'd-9',
        payload: { ...delivery.payload, body: { ticket: 'T-7', secret: 'payload-only' } },
      };
      expect(await runWebhookJob(deps, { ...job, deliveryId: 'd-8' })).toMatchObject({ outcome: 'opened' });
      expect(await runWebhookJob(deps, job)).toEqual({ outcome: 'retrying', attempt: 2, delayMs: 5_000 });
      expect(added[0]).toMatchObject({
        queue: 'triggers',
        name: 'webhook',
        data: { deliveryId: 'd-9', attempt: 2 },
        options: { delayMs: 5_000, jobId: expect.stringMatching(/^webhook-[0-9a-f]{64}-try-2$/) },
      });
      expect(await runWebhookJob(deps, { ...job, attempt: 4 })).toEqual({
        outcome: 'retrying',
        attempt: 5,
        delayMs: 40_000,
      });
      expect(webhookRetryDelayMs(9)).toBe(300_000);
      expect(await runWebhookJob(deps, { ...job, attempt: WEBHOOK_BUSY_ATTEMPTS })).toEqual({ outcome: 'dropped' });
      expect(lines).toEqual([
        'dropped webhook delivery d-9 of trigger "intake-hook" (workflow "intake", environment "main"): the session ' +
        'of key "T-7" stayed busy through 10 tries',
      ]);
      expect(lines.join()).not.toContain('payload-only');
      const [session] = await sessionsOf(w.deps).find({});
      await sessionsOf(w.deps).updateOne({ _id: session._id }, { $set: { status: 'awaiting_input' } });
      expect(await runWebhookJob(deps, { ...job, attempt: 2 })).toEqual({
        outcome: 'delivered',
        sessionId: session._id,
      });
      expect(added).toHaveLength(2);
    },
  );
});
