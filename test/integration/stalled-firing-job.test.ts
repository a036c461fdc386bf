/**
 * A firing job that BullMQ runs again after a stall opens no second session: a real redis-server, a SQLite document
 * store shared by two processes, and a worker process (test/fixtures/stalled-firing-worker.ts) that runs a `webhook`
 * job's and then a `completion` job's handler, opening their sessions, and is SIGKILLed before BullMQ hears either
 * job completed. Each job stays active under a lock nobody renews; this process's consumer takes it again once
 * BullMQ finds it stalled (lock 30 s, stall check every 30 s: BullMQ's defaults), runs the same handler, and finds
 * the session the first run opened.
 * Source: spec/platform-service.md § Firings; docs/architecture.md § Life of a turn (1).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBullJobQueue, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import { TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import { webhookJobIdOf, type WebhookJob } from '../../core/trigger/webhook-firings.ts';
import type { CompletionFiring } from '../../core/session/completion.ts';
import { sessionsOf } from '../../core/session/session-store.ts';
import { eventually } from '../../core/testing/job-queue.contract.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { stalledFiringHandler } from '../fixtures/stalled-firing-handler.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

const root = resolve(import.meta.dirname, '../..');
const bun = join(root, 'node_modules/.bin/bun');
const worker = join(root, 'test/fixtures/stalled-firing-worker.ts');
const prefix = 'stalled-firing';

let redis: RunningRedis;
let connection: RedisConnection;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'cairn-stalled-firing-'));
});
afterAll(async () => {
  await connection?.quit();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the worker until it killed itself after one job; @returns what it printed. */
async function runWorkerOnce(path: string): Promise<string> {
  const child = spawn(bun, [worker, path, redis.url, prefix], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, s) => done(s)));
  expect(signal, out).toBe('SIGKILL');
  return out;
}

it('a webhook and a completion job run again after a stall open no second session', { timeout: 150_000 }, async () => {
  const path = join(dir, 'docdb.sqlite');
  const docs = await openSqliteDocumentStore({ path });
  await docs.collection(agentCollections.environments).insertOne({
    _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main',
    published: { buildId: 'b1', commitId: 'c1', publishedAt: new Date() },
  } as never);
  const queue = createBullJobQueue({ connection, prefix });
  const delivery: WebhookJob = {
    agentId: 'a1', environment: 'main', connection: 'hooks', deliveryId: 'd-1',
    payload: {
      method: 'POST', contentType: 'application/json', userAgent: null, requestId: null, query: {}, body: { n: 1 },
    },
  };
  const firing: CompletionFiring = {
    type: 'completion', agentId: 'a1', environment: 'main', workflow: 'intake', sessionId: 's0', turnId: 't0',
    status: 'succeeded', error: null, state: 'triage', variables: {}, endedAt: new Date().toISOString(),
  };
  const outcomes: { id: string; outcome: unknown }[] = [];
  let consumer: { stop(): Promise<void> } | undefined;
  try {
    const webhookJobId = await webhookJobIdOf(cryptoIds, delivery);
    await queue.add(TRIGGER_QUEUE, 'webhook', delivery, { jobId: webhookJobId });
    expect(await runWorkerOnce(path)).toContain(`{"ran":"${webhookJobId}","outcome":"opened"}`);
    await queue.add(TRIGGER_QUEUE, 'completion', { firing }, { jobId: 'completion-t0' });
    expect(await runWorkerOnce(path)).toMatch(/\{"ran":"completion-t0","outcome":\["fs-[0-9a-f]{32}"\]\}/);
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(2);
    expect((await queue.counts(TRIGGER_QUEUE)).active).toBe(2);

    const stores = { docs, objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds };
    const handle = stalledFiringHandler({ ...stores, queue });
    consumer = queue.consume(TRIGGER_QUEUE, async (job) => {
      outcomes.push({ id: job.id, outcome: await handle(job) });
    });
    await eventually(() => expect(outcomes).toHaveLength(2), 120_000);
    expect(outcomes).toEqual(expect.arrayContaining([
      { id: webhookJobId, outcome: 'existing' }, { id: 'completion-t0', outcome: [] },
    ]));
    expect((await sessionsOf({ docs }).find({})).map((s) => s.workflow).sort()).toEqual(['follow-up', 'intake']);
  } finally {
    await consumer?.stop();
    await queue.close();
  }
});
