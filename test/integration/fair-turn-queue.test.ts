/**
 * The fair turn queue (core/adapters/redis/fair-queue.ts) on a real redis-server, reached the way every process
 * reaches it: through the JobQueue port of createBullJobQueue with the turn queues kept fair, and turns queued by
 * enqueueTurnJob, which reads each turn's place from its records (core/session/turn-place.ts).
 * - the rule of docs/decisions.md D24 § 1: with organization A's 200 queued background turns, organization B's chat turn is
 *   taken next; then round robin between organizations and, within one, between agents; interactive first, yet a
 *   background turn at least every fifth take;
 * - it holds with two dispatchers (each turn taken once) and across a restart of every consumer (the order is the
 *   queue store's);
 * - a consumer that dies holding a turn leaves it pending for its lease; the next take then runs it again;
 * - bounded intake (core/session/turn-intake.ts) waits while the background lane is full;
 * - webhook firings wait on a fair queue too: one organization's burst does not hold another's delivery.
 * Not timed: every assertion is about order and counts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBullJobQueue, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { waitForTurnRoom } from '../../core/session/turn-intake.ts';
import { enqueueTurnJob, ensureTurnJob, FAIR_TURN_QUEUES, TURN_QUEUE } from '../../core/session/turn-jobs.ts';
import { FAIR_QUEUES } from '../../core/boot/fair-queues.ts';
import { WEBHOOK_FIRING_QUEUE } from '../../core/trigger/webhook-firings.ts';
import { anyShape } from '../../core/testing/any-shape.ts';
import { eventually } from '../../core/testing/job-queue.contract.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let connection: RedisConnection;
let docs: DocumentStore;
let queue: JobQueue;
let prefix = 0;
const opened: JobQueue[] = [];

/** A job queue as a process opens it (the turn queues fair), under this test's prefix. */
const openQueue = (leaseMs?: number, over = connection) => {
  const made = createBullJobQueue({
    connection: over, prefix: `fair${prefix}`, fairQueues: FAIR_TURN_QUEUES, ...(leaseMs ? { fairLeaseMs: leaseMs } : {}),
  });
  opened.push(made);
  return made;
};

beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url);
});
afterAll(async () => {
  await connection.quit();
  await redis.stop();
});
beforeEach(() => {
  prefix += 1;
  docs = createMemoryDocumentStore();
  queue = openQueue();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((q) => q.close()));
});

/**
 * Writes a session of `org`'s agent `agent` opened by a trigger of `type` (undefined: a chat) and its queued turn of
 * `kind`, and queues the turn as every use case does; returns the turn id.
 */
async function queued(id: string, org: string, agent: string, type?: string, kind = 'prompt'): Promise<string> {
  const trigger = type ? { id: type, type } : { id: 'chat', arguments: {} };
  await anyShape(sessionsOf({ docs })).insertOne({
    _id: `s-${id}`, orgId: org, agentId: agent, variables: { trigger }, status: 'running',
  } as never);
  await anyShape(turnsOf({ docs })).insertOne({
    _id: id, sessionId: `s-${id}`, orgId: org, kind, status: 'queued',
  } as never);
  await enqueueTurnJob({ queue, docs }, id);
  return id;
}

/**
 * Consumes the turn queue one turn at a time until at least `count` turns were taken; returns every turn it took,
 * in order (one more may be taken before the consumer stops).
 */
async function takeOrder(count: number, from: JobQueue = queue): Promise<string[]> {
  const taken: string[] = [];
  const consumer = from.consume(TURN_QUEUE, async (job) => {
    taken.push((job.data as { turnId: string }).turnId);
  }, { concurrency: 1 });
  await eventually(() => expect(taken.length).toBeGreaterThanOrEqual(count));
  await consumer.stop();
  return taken;
}

describe('fair turn queue', () => {
  it("takes organization B's chat turn next, with organization A's 200 background turns queued", async () => {
    for (let n = 0; n < 200; n += 1) await queued(`a-hook-${n}`, 'org-a', 'intake', 'webhook');
    await queued('b-chat', 'org-b', 'helpdesk');
    expect(await queue.counts(TURN_QUEUE)).toMatchObject({ waiting: 201, lanes: { interactive: 1, background: 200 } });
    const [first, second] = await takeOrder(2);
    expect(first).toBe('b-chat');
    expect(second).toBe('a-hook-0');
  });

  it('takes background turns round robin between organizations, then between agents of one', async () => {
    for (let n = 0; n < 50; n += 1) await queued(`a1-${n}`, 'org-a', 'a1', 'schedule');
    await queued('a2-0', 'org-a', 'a2', 'polling');
    await queued('c-0', 'org-c', 'c1', 'completion');
    await queued('c-1', 'org-c', 'c1', 'callback');
    const order = await takeOrder(6);
    // org-a, org-c, org-a (its other agent now), org-c, org-a, org-a.
    expect(order.slice(0, 6)).toEqual(['a1-0', 'c-0', 'a2-0', 'c-1', 'a1-1', 'a1-2']);
  });

  it('puts interactive turns first without starving background ones: one background take in five', async () => {
    for (let n = 0; n < 10; n += 1) await queued(`bg-${n}`, 'org-a', 'intake', 'webhook');
    for (let n = 0; n < 10; n += 1) await queued(`reply-${n}`, 'org-b', 'desk', 'webhook', 'reply');
    const order = (await takeOrder(10)).slice(0, 10);
    expect(order.slice(0, 5)).toEqual(['reply-0', 'reply-1', 'reply-2', 'reply-3', 'bg-0']);
    expect(order.filter((id) => id.startsWith('bg-'))).toEqual(['bg-0', 'bg-1']);
  });

  it('classes evaluations and webhook deliveries as background, chats, decisions and MCP calls as interactive', async () => {
    await queued('delivery', 'org-a', 'x', 'webhook', 'delivery');
    await queued('agui', 'org-a', 'x', 'chat', 'delivery');
    await anyShape(sessionsOf({ docs })).insertOne({
      _id: 's-eval', orgId: 'org-a', agentId: 'x', variables: { trigger: { id: 'chat' } }, evaluation: { runId: 'r' },
    } as never);
    await anyShape(turnsOf({ docs })).insertOne({ _id: 'eval', sessionId: 's-eval', orgId: 'org-a', kind: 'prompt' } as never);
    await enqueueTurnJob({ queue, docs }, 'eval');
    await queued('decision', 'org-b', 'y', 'webhook', 'decision');
    await queued('mcp', 'org-b', 'y', 'mcp');
    expect((await queue.counts(TURN_QUEUE)).lanes).toEqual({ interactive: 3, background: 2 });
  });

  it('holds across two dispatchers (each turn taken once) and across their restart', async () => {
    for (let n = 0; n < 30; n += 1) await queued(`a-${n}`, 'org-a', 'intake', 'webhook');
    const other = openQueue();
    const [one, two] = await Promise.all([takeOrder(10, queue), takeOrder(10, other)]);
    const before = [...one, ...two];
    expect(new Set(before).size).toBe(before.length);
    // Every consumer stopped and closed ("restarted"); B's chat queued meanwhile is still first for the next one.
    await Promise.all(opened.splice(0).map((q) => q.close()));
    queue = openQueue();
    await queued('b-chat', 'org-b', 'helpdesk');
    const after = await takeOrder(31 - before.length, openQueue());
    expect(after[0]).toBe('b-chat');
    expect(new Set([...before, ...after]).size).toBe(31);
    expect(before.length + after.length).toBe(31);
  });

  it("takes organization B's webhook firing second, with organization A's 100 firings queued before it", async () => {
    const firings = createBullJobQueue({ connection, prefix: `fair${prefix}`, fairQueues: FAIR_QUEUES });
    opened.push(firings);
    const add = (id: string, tenant: string) =>
      firings.add(WEBHOOK_FIRING_QUEUE, 'webhook', { id }, { jobId: id, place: { lane: 'background', tenant, group: 'g' } });
    for (let n = 0; n < 100; n += 1) await add(`a-${n}`, 'org-a');
    await add('b-0', 'org-b');
    const taken: string[] = [];
    const consumer = firings.consume(WEBHOOK_FIRING_QUEUE, async (job) => void taken.push(job.id), { concurrency: 1 });
    await eventually(() => expect(taken.length).toBeGreaterThanOrEqual(3));
    await consumer.stop();
    expect(taken.slice(0, 3)).toEqual(['a-0', 'b-0', 'a-1']);
  });

  it('adds a turn once, removes a waiting one, and refuses a place-less add or a delay', async () => {
    const id = await queued('t1', 'org:a', 'b', 'webhook');
    await queued('t2', 'org', 'a:b', 'webhook');
    await enqueueTurnJob({ queue, docs }, id);
    expect(await queue.counts(TURN_QUEUE)).toMatchObject({ waiting: 2 });
    expect(await queue.remove(TURN_QUEUE, 't1')).toBe(true);
    expect(await queue.jobState(TURN_QUEUE, 't1')).toBe('missing');
    expect(await takeOrder(1)).toEqual(['t2']);
    // An ended job is kept (as BullMQ keeps it): a second add adds nothing; the turn sweep's ensure removes and adds.
    await eventually(async () => expect(await queue.jobState(TURN_QUEUE, 't2')).toBe('ended'));
    await enqueueTurnJob({ queue, docs }, 't2');
    expect(await queue.counts(TURN_QUEUE)).toMatchObject({ waiting: 0, completed: 1 });
    expect(await ensureTurnJob({ queue, docs }, 't2')).toBe(true);
    expect(await queue.jobState(TURN_QUEUE, 't2')).toBe('pending');
    const refused = await queue.add(TURN_QUEUE, 'turn', {}, { jobId: 'x' }).catch((e: unknown) => e);
    expect(isPlatformError(refused) && refused.message).toContain('needs a place');
    const place = { lane: 'background' as const, tenant: 'o', group: 'g' };
    const delayed = await queue.add(TURN_QUEUE, 'turn', {}, { jobId: 'y', delayMs: 5, place }).catch((e: unknown) => e);
    expect(isPlatformError(delayed) && delayed.message).toContain('needs no delay');
  });

  it('holds a turn of a consumer that died for its lease, then the next take runs it again (a stalled job)', async () => {
    const dyingConnection = await openRedis(redis.url);
    const dying = openQueue(300, dyingConnection);
    await queued('held', 'org-a', 'x', 'webhook');
    let entered = false;
    const never = new Promise<void>(() => undefined);
    dying.consume(TURN_QUEUE, async () => {
      entered = true;
      await never;
    });
    await eventually(() => expect(entered).toBe(true));
    expect(await dying.jobState(TURN_QUEUE, 'held')).toBe('pending');
    // The process dies: its connection is gone, so nothing renews the lease.
    opened.splice(opened.indexOf(dying), 1);
    dyingConnection.disconnect();
    await eventually(async () => expect(await queue.jobState(TURN_QUEUE, 'held')).toBe('missing'));
    // The next take (any consumer's) puts it back at the head of its group and runs it; the sweep's add of the same
    // turn meanwhile does not double it.
    await enqueueTurnJob({ queue, docs }, 'held');
    await queued('after', 'org-a', 'x', 'webhook');
    expect((await takeOrder(2)).slice(0, 2)).toEqual(['held', 'after']);
    expect(await queue.counts(TURN_QUEUE)).toMatchObject({ waiting: 0 });
  });

  it('holds a firing back while the background lane is full (bounded intake), and lets it go when a turn is taken',
    async () => {
      await queued('bg-1', 'org-a', 'x', 'webhook');
      await queued('bg-2', 'org-a', 'x', 'webhook');
      let through = false;
      const stop = new AbortController();
      const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
      const waiting = waitForTurnRoom({ queue, bound: 2, sleep, stop: stop.signal }, () => 0)
        .then(() => (through = true));
      await queued('chat', 'org-b', 'y');
      await sleep(200);
      expect(through).toBe(false);
      expect((await takeOrder(2)).slice(0, 2)).toEqual(['chat', 'bg-1']);
      await waiting;
      expect(through).toBe(true);
    });
});
