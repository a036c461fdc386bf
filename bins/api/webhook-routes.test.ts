/**
 * The webhook endpoint over the in-memory document store, real caller admission (bearer tokens of two
 * organizations' connections) and a JobQueue port fake that can stop or fail at the add: a process stopped between
 * the claim and the add leaves a claim holding its job, which the dispatchers' resume sweep queues once after the
 * grace, while the sender's retry is answered `duplicate`; the dispatcher's handler then opens one session. A
 * delivery whose session key the dispatcher would refuse (300 characters) is answered 400 before any claim; a
 * queue store that refuses the add leaves no claim, so the retry is taken.
 * Source: spec/platform-service.md § Endpoints, § Webhook firing payload, § Firings; docs/architecture.md § Life of
 * a turn (1).
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { PublishedAgent } from '../../core/agent/hosting.ts';
import { runWebhookJob, type WebhookJob } from '../../core/trigger/webhook-firings.ts';
import {
  connectionCollections, createConnection, deleteConnection, ensureConnectionIndexes, regenerateToken,
  type AdmissionDeps,
} from '../../core/connection/index.ts';
import type { BaseDocument, DocumentStore } from '../../core/ports/document-store.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import {
  deliveriesCollection, PENDING_FIRING_GRACE_MS, resumePendingFirings, type DeliveryRecord,
} from '../../core/session/delivery-claims.ts';
import { openFiredSession } from '../../core/session/session-opening.ts';
import { sessionsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { CONNECTION_CACHE_MS } from './connection-cache.ts';
import { webhookRoutes } from './webhook-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };

/** Agent `a1` (organization o1) keys sessions by `body.ticket`; agent `b1` (organization o2) keys none. */
const agentOf = (buildId: string): PublishedAgent => ({
  agentPrompt: '', skills: {},
  workflows: {
    intake: {
      slug: 'intake', definition: {} as never, hooks: {},
      triggers: [{
        id: 'hooks', type: 'webhook', workflow: 'intake', state: 'triage',
        fields: { connection: 'hooks', ...(buildId === 'build-a' ? { session: '{{ body.ticket }}' } : {}) },
      }],
    },
  },
});

type Added = { queue: string; name: string; data: unknown; jobId?: string };

async function world() {
  let now = new Date('2026-11-26T09:00:00Z');
  const clock = { now: () => now };
  const docs = createMemoryDocumentStore({ now: clock.now });
  const objects = createMemoryObjectStore();
  const builds = { agentOf: async (id: string) => agentOf(id), workflowOf: async () => { throw new Error('unused'); } };
  for (const [agentId, orgId, buildId] of [['a1', 'o1', 'build-a'], ['b1', 'o2', 'build-b']]) {
    await docs.collection(agentCollections.environments).insertOne({
      _id: `${agentId}:main`, agentId, orgId, name: 'main', published: { buildId, commitId: 'c1', publishedAt: now },
    } as never);
  }
  const connDeps = {
    docs, ids: cryptoIds, production: false, clock,
    scope: async (_caller: unknown, agent: string, environment: string) =>
      ({ orgId: agent === 'a1' ? 'o1' : 'o2', agentId: agent, environment }),
  };
  await ensureConnectionIndexes(connDeps);
  const hookOf = async (agent: string) => {
    const input = { identifier: 'hooks', protocol: 'webhook', auth: 'bearer' } as const;
    const made = await createConnection(connDeps, { subject: 'maria' }, { agent, environment: 'main', input });
    return { address: made.connection.address, token: made.token!, id: made.connection._id };
  };
  const hooks = { a: await hookOf('a1'), b: await hookOf('b1') };
  // The queue store: `ok` takes jobs (a job id once), `fail` refuses, `stop` never answers (the process stops).
  const queue = { mode: 'ok' as 'ok' | 'fail' | 'stop', added: [] as Added[], ended: new Set<string>(), attempts: 0 };
  // Only `add` is reached from the endpoint; the port's other methods are not.
  const port = {
    add: async (name, jobName, data, options) => {
      queue.attempts += 1;
      if (queue.mode === 'stop') return new Promise<string>(() => undefined);
      if (queue.mode === 'fail') throw new Error('OOM command not allowed when used memory > maxmemory');
      if (!queue.added.some((a) => a.jobId !== undefined && a.jobId === options?.jobId)) {
        queue.added.push({ queue: name, name: jobName, data, jobId: options?.jobId });
      }
      return options?.jobId ?? 'job';
    },
    // What the resume sweep asks: a job added and not yet run is pending, one run has ended, else it is missing.
    jobState: async (_name, jobId) => queue.ended.has(jobId) ? 'ended'
      : queue.added.some((a) => a.jobId === jobId) ? 'pending' : 'missing',
    consume: () => { throw new Error('unused'); }, counts: async () => { throw new Error('unused'); },
    close: async () => undefined,
  } satisfies Pick<JobQueue, 'add' | 'jobState' | 'consume' | 'counts' | 'close'> as unknown as JobQueue;
  const admission: AdmissionDeps = {
    ids: cryptoIds, jwt: { verify: async () => { throw new Error('not oidc'); } }, memberMayUse: async () => false,
  };
  const clientAddress = () => '203.0.113.7';
  // The endpoint's view of the store counts its reads of connection records (the store itself is real).
  const reads = { connections: 0 };
  const counted: DocumentStore = {
    ...docs,
    collection: <T extends BaseDocument>(name: string) => {
      const inner = docs.collection<T>(name);
      if (name !== connectionCollections.connections) return inner;
      return new Proxy(inner, {
        get(target, key) {
          const value = Reflect.get(target, key) as unknown;
          if (typeof value !== 'function') return value;
          if (key === 'find' || key === 'findOne') reads.connections += 1;
          return (value as (...args: unknown[]) => unknown).bind(target);
        },
      });
    },
  };
  const app = webhookRoutes({ docs: counted, clock, admission, queue: port, builds, clientAddress, logger });
  const post = (hook: { address: string; token: string }, deliveryId: string, body: unknown = { action: 'opened' }) => {
    const headers = {
      authorization: `Bearer ${hook.token}`, 'content-type': 'application/json', 'x-delivery-id': deliveryId,
    };
    const url = `http://localhost/api/webhooks/${hook.address}`;
    const request = new Request(url, { method: 'POST', headers, body: JSON.stringify(body) });
    return app.handle(request);
  };
  const firingDeps = {
    docs, objects, clock, ids: cryptoIds, enqueueTurn: async () => undefined, builds, queue: port, log: () => undefined,
  };
  const sweep = () => resumePendingFirings({
    docs, clock, queue: port, log: () => undefined, open: (p) => openFiredSession(firingDeps, p.target, p.firing),
  });
  const claims = () => docs.collection<DeliveryRecord>(deliveriesCollection).find({});
  const later = (ms: number) => { now = new Date(now.getTime() + ms); };
  return { docs, queue, hooks, post, sweep, claims, firingDeps, later, reads, connDeps };
}

describe('the webhook endpoint', () => {
  it('leaves a delivery stopped between claim and add to the resume sweep, which queues it once', async () => {
    const w = await world();
    w.queue.mode = 'stop';
    void w.post(w.hooks.a, 'd-1');
    for (let i = 0; i < 100 && (await w.claims()).length === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    const [claim] = await w.claims();
    expect(claim.status).toBe('pending');
    const jobId = expect.stringMatching(/^webhook-[0-9a-f]{64}$/);
    expect(claim.pending).toMatchObject({ job: { queue: 'webhook-firings', name: 'webhook', jobId } });
    // The fair firing queue's place: the background lane of the connection's organization and agent.
    expect(claim.pending).toMatchObject({ job: { place: { lane: 'background', tenant: 'o1', group: 'a1' } } });
    expect(w.queue.added).toEqual([]);

    w.queue.mode = 'ok';
    const retry = await w.post(w.hooks.a, 'd-1');
    expect([retry.status, await retry.json()]).toEqual([202, { delivery: 'd-1', duplicate: true }]);
    expect(await w.sweep()).toEqual([]);
    w.later(PENDING_FIRING_GRACE_MS + 1_000);
    expect(await w.sweep()).toEqual([claim._id]);
    expect(await w.sweep()).toEqual([]);
    expect(w.queue.added).toHaveLength(1);
    const claimedJob = claim.pending && 'job' in claim.pending ? claim.pending.job.jobId : '';
    expect(w.queue.added[0]).toMatchObject({ queue: 'webhook-firings', name: 'webhook', jobId: claimedJob });
    // Pending until the dispatcher's handler has opened the session: it settles the claim then.
    expect((await w.claims())[0].status).toBe('pending');

    expect(await runWebhookJob(w.firingDeps, w.queue.added[0].data as WebhookJob)).toMatchObject({ outcome: 'opened' });
    w.queue.ended.add(claimedJob);
    expect((await w.claims())[0].pending).toBeUndefined();
    expect((await w.claims())[0].status).toBeUndefined();
    expect(await w.sweep()).toEqual([]);
    const again = await w.post(w.hooks.a, 'd-1');
    expect(await again.json()).toEqual({ delivery: 'd-1', duplicate: true });
    expect(await sessionsOf(w.firingDeps).countDocuments({})).toBe(1);
  });

  it('keeps organizations apart: another\'s token is refused, one delivery id is taken at each', async () => {
    const w = await world();
    const foreign = await w.post({ address: w.hooks.a.address, token: w.hooks.b.token }, 'd-same');
    expect(foreign.status).toBe(401);
    expect(await w.claims()).toEqual([]);
    expect((await w.post(w.hooks.a, 'd-same', { ticket: 'T-1' })).status).toBe(202);
    const atB = await w.post(w.hooks.b, 'd-same');
    expect([atB.status, await atB.json()]).toEqual([202, { delivery: 'd-same' }]);
    expect(w.queue.added.map((a) => (a.data as WebhookJob).agentId)).toEqual(['a1', 'b1']);
    expect(new Set(w.queue.added.map((a) => a.jobId)).size).toBe(2);
    expect((await w.claims()).map((c) => c.scope).sort()).toEqual([w.hooks.a.id, w.hooks.b.id].sort());
    // Each claim is pending until its session opens (the dispatcher settles it), then holds no payload.
    expect((await w.claims()).every((c) => c.status === 'pending')).toBe(true);
    for (const added of w.queue.added) await runWebhookJob(w.firingDeps, added.data as WebhookJob);
    expect((await w.claims()).every((c) => c.pending === undefined && c.status === undefined)).toBe(true);
  });

  it('answers 400 to a delivery whose session key the dispatcher would refuse, before any claim', async () => {
    const w = await world();
    const refused = await w.post(w.hooks.a, 'd-long', { ticket: 'x'.repeat(300) });
    expect(refused.status).toBe(400);
    const { error } = await refused.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_session_key');
    expect(error.message).toMatch(/^Nothing was taken: .*trigger "hooks"/);
    expect(error.message).toContain('at most 256 characters (this one has 300)');
    expect(error.message).not.toContain('xxxx');
    expect(await w.claims()).toEqual([]);
    expect(w.queue.attempts).toBe(0);
    expect((await w.post(w.hooks.a, 'd-long', { ticket: 'T-2' })).status).toBe(202);
  });

  it('answers 503 and keeps no claim when the queue store refuses the add: the sender\'s retry is taken', async () => {
    const w = await world();
    w.queue.mode = 'fail';
    const refused = await w.post(w.hooks.b, 'd-2');
    expect(refused.status).toBe(503);
    const message = expect.stringMatching(/nothing was taken; send it again later/);
    expect(await refused.json()).toMatchObject({ error: { code: 'queue_unavailable', message } });
    expect(await w.claims()).toEqual([]);
    w.queue.mode = 'ok';
    const retry = await w.post(w.hooks.b, 'd-2');
    expect([retry.status, await retry.json()]).toEqual([202, { delivery: 'd-2' }]);
  });

  it('reads a connection once a second per address, and sees it deleted or its token changed after that', async () => {
    const w = await world();
    for (const id of ['r-1', 'r-2', 'r-3', 'r-4']) expect((await w.post(w.hooks.a, id)).status).toBe(202);
    expect(w.reads.connections).toBe(1);
    // A regenerated token: the old one is refused, the new one taken, once the cached record is older than the bound.
    const fresh = await regenerateToken(w.connDeps, { subject: 'maria' }, {
      agent: 'a1', environment: 'main', identifier: 'hooks',
    });
    w.later(CONNECTION_CACHE_MS);
    expect((await w.post(w.hooks.a, 'r-5')).status).toBe(401);
    expect((await w.post({ address: w.hooks.a.address, token: fresh.token }, 'r-6')).status).toBe(202);
    expect(w.reads.connections).toBe(2);
    // A deleted connection: its address answers 404 once the bound has passed; another organization's is unaffected.
    await deleteConnection(w.connDeps, { subject: 'maria' }, { agent: 'a1', environment: 'main', identifier: 'hooks' });
    w.later(CONNECTION_CACHE_MS);
    const gone = await w.post({ address: w.hooks.a.address, token: fresh.token }, 'r-7');
    expect(gone.status).toBe(404);
    expect(JSON.stringify(await gone.json())).not.toContain(w.hooks.a.address);
    expect((await w.post(w.hooks.b, 'r-8')).status).toBe(202);
    expect((await w.claims()).map((c) => c.deliveryId).sort()).toEqual(['r-1', 'r-2', 'r-3', 'r-4', 'r-6', 'r-8']);
  });
});
