/**
 * A webhook delivery whose keyed session is busy, through a real BullMQ queue on a redis-server the test starts:
 * runWebhookJob (the dispatcher's handler of `webhook` jobs) queues it again with a delay under a job id BullMQ
 * accepts, and the later try joins the session once it awaits input.
 * Source: docs/agent-format.md § Triggers (`session`); docs/decisions.md D8 (session keys: a busy firing is not lost).
 */
import { describe, expect, it } from 'vitest';
import { createBullJobQueue } from '../../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { PublishedAgent } from '../../core/agent/hosting.ts';
import { TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import { runWebhookJob, type WebhookJob, type WebhookJobOutcome } from '../../core/trigger/webhook-firings.ts';
import { sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { eventually } from '../../core/testing/job-queue.contract.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { redisForSuite } from '../helpers/redis-suite.ts';

const suite = redisForSuite();

const agent: PublishedAgent = {
  agentPrompt: '', skills: {},
  workflows: { support: { slug: 'support', definition: {} as never, hooks: {}, triggers: [{ id: 'updates', type: 'webhook', workflow: 'support', state: 'follow', fields: { connection: 'tickets', session: 'ticket-{{ body.ticket }}' } }] } },
};
const delivery = (deliveryId: string): WebhookJob => ({ agentId: 'a1', environment: 'main', connection: 'tickets', deliveryId, payload: { method: 'POST', contentType: 'application/json', userAgent: null, requestId: null, query: {}, body: { ticket: 'T-1' } } });

describe('a webhook delivery whose session is busy', () => {
  it('is queued again with a delay and joins the session once it awaits input', { timeout: 60_000 }, async () => {
    const docs = createMemoryDocumentStore();
    await docs.collection(agentCollections.environments).insertOne({ _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never);
    const queue = createBullJobQueue({ connection: suite.connection, prefix: 'webhook-busy-retry' });
    const outcomes: WebhookJobOutcome[] = [];
    const deps = {
      docs, objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds, queue, log: () => undefined,
      enqueueTurn: async () => undefined, builds: { agentOf: async () => agent, workflowOf: async () => { throw new Error('unused'); } },
    };
    const consumer = queue.consume(TRIGGER_QUEUE, async (job) => { outcomes.push(await runWebhookJob(deps, job.data as WebhookJob)); });
    try {
      await queue.add(TRIGGER_QUEUE, 'webhook', delivery('d-1'));
      await eventually(() => expect(outcomes).toHaveLength(1));
      await queue.add(TRIGGER_QUEUE, 'webhook', delivery('d-2'));
      await eventually(() => expect(outcomes).toHaveLength(2));
      expect(outcomes.map((o) => o.outcome)).toEqual(['opened', 'retrying']);
      expect((await queue.counts(TRIGGER_QUEUE)).delayed).toBe(1);

      const [session] = await sessionsOf(deps).find({});
      await sessionsOf(deps).updateOne({ _id: session._id }, { $set: { status: 'awaiting_input' } });
      await eventually(() => expect(outcomes).toHaveLength(3), 30_000);
      expect(outcomes[2]).toEqual({ outcome: 'delivered', sessionId: session._id });
      expect(await turnsOf(deps).countDocuments({ sessionId: session._id, kind: 'delivery' })).toBe(2);
      expect(await sessionsOf(deps).countDocuments({})).toBe(1);
    } finally {
      await consumer.stop();
      await queue.close();
    }
  });
});
