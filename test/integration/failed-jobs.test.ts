/**
 * Failed jobs are bounded (docs/architecture.md § Queues and collections, failed jobs): against a real
 * redis-server and a real SQLite document store, 240 jobs carrying 8 KiB payloads whose handler fails leave at
 * most 30 failed jobs in the queue store, each holding only the ids it named, and at most 20 failure records in
 * `failed_jobs`, each naming the queue, job, the identifiers the job carried and the reason, never the payload.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullJobQueue, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/sqlite-document-store.ts';
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import {
  ensureFailedJobIndexes, FAILED_JOBS_COLLECTION, failedJobIds, listFailedJobs, recordFailedJob, trimFailedJobs, type FailedJobRecord,
} from '../../core/jobs/failed-jobs.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { eventually } from '../../core/testing/job-queue.contract.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let connection: RedisConnection;
let docs: DocumentStore;
let dir: string;

beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url);
  dir = mkdtempSync(join(tmpdir(), 'cairn-failed-jobs-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  await ensureFailedJobIndexes(docs);
});
afterAll(async () => {
  await docs?.close();
  await connection?.quit();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const payload = 'x'.repeat(8192);
const SECRET = 'sk-live-do-not-keep';

describe('failed jobs', () => {
  it('keep the queue store bounded and leave a bounded operator record without the payload', async () => {
    const limits = { kept: 20, days: 7 };
    const queue = createBullJobQueue({
      connection, prefix: 'failed-bound', keepFailed: { count: 30, ageSeconds: 3600 },
      onFailed: (failure) => recordFailedJob({ docs, clock: systemClock }, failure, limits).then(() => undefined),
      failedData: (data) => ({ ids: failedJobIds(data) }),
    });
    let seen = 0;
    const consumer = queue.consume('triggers', async (job) => {
      seen += 1;
      const { deliveryId } = job.data as { deliveryId: string };
      throw new Error(`The session key expression failed for delivery ${deliveryId}.`);
    }, { concurrency: 4 });
    for (let i = 0; i < 240; i += 1) {
      const data = { agentId: 'a1', connection: 'hooks', deliveryId: `d-${i}`, payload, token: SECRET };
      await queue.add('triggers', 'webhook', data, { jobId: `webhook-d-${i}` });
    }
    await eventually(async () => expect(seen).toBe(240), 60_000);
    await eventually(async () => {
      const counts = await queue.counts('triggers');
      expect(counts.waiting + counts.active).toBe(0);
    });
    await consumer.stop();
    const counts = await queue.counts('triggers');
    expect(counts.failed).toBeGreaterThan(0);
    expect(counts.failed).toBeLessThanOrEqual(30);
    // The payloads left with the jobs: what the store holds is that of the kept jobs only.
    const jobKeys = await connection.eval(`return #redis.call('keys', 'failed-bound:triggers:webhook-*')`, 0);
    expect(Number(jobKeys)).toBeLessThanOrEqual(30);
    // A kept failed job holds the ids it named, not its 8 KiB payload nor the token beside it.
    const [kept] = await connection.zrange('failed-bound:triggers:failed', '-1', '-1');
    const keptData = await connection.hget(`failed-bound:triggers:${kept}`, 'data');
    const ids = { agentId: 'a1', connection: 'hooks', deliveryId: expect.stringMatching(/^d-/) };
    expect(JSON.parse(keptData!)).toEqual({ ids });
    await queue.close();

    const records = await docs.collection<FailedJobRecord>(FAILED_JOBS_COLLECTION).find({});
    expect(records.length).toBeLessThanOrEqual(limits.kept);
    expect(records.length).toBeGreaterThan(0);
    const [newest] = await listFailedJobs(docs, 1);
    expect(newest).toMatchObject({
      queue: 'triggers', name: 'webhook', jobId: expect.stringMatching(/^webhook-d-\d+$/),
      ids: { agentId: 'a1', connection: 'hooks', deliveryId: expect.stringMatching(/^d-\d+$/) },
      reason: expect.stringMatching(/^The session key expression failed for delivery d-\d+\.$/),
    });
    const stored = JSON.stringify(records);
    expect(stored).not.toContain(payload.slice(0, 100));
    expect(stored).not.toContain(SECRET);
  }, 90_000);

  it('removes records older than the retention days, and cuts a long reason', async () => {
    const now = systemClock.now().getTime();
    const eightDaysAgo = { now: () => new Date(now - 8 * 86_400_000) };
    const error = new Error('y'.repeat(1000));
    const failure = { queue: 'turns', name: 'turn', id: 'turn-old', data: { turnId: 't-1' }, error };
    const record = await recordFailedJob({ docs, clock: eightDaysAgo }, failure, { kept: 100, days: 7 });
    expect(record.reason.length).toBe(300);
    expect(record.ids).toEqual({ turnId: 't-1' });
    await recordFailedJob({ docs, clock: systemClock }, { ...failure, id: 'turn-new' }, { kept: 100, days: 7 });
    await trimFailedJobs({ docs, clock: systemClock }, { kept: 100, days: 7 });
    const ids = (await listFailedJobs(docs, 200)).map((r) => r._id);
    expect(ids).toContain('turns:turn-new');
    expect(ids).not.toContain('turns:turn-old');
  });
});
