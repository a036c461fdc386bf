/**
 * The Redis adapters against real redis-servers started by the tests: the Lease and JobQueue contracts,
 * and openRedis with a password-protected server.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullJobQueue, createRedisLease, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { eventually, jobQueueContract } from '../../core/testing/job-queue.contract.ts';
import { leaseContract } from '../../core/testing/lease.contract.ts';
import { freePort } from '../helpers/ports.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let connection: RedisConnection;
let fixtures = 0;

beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url);
});
afterAll(async () => {
  await connection?.quit();
  await redis?.stop();
});

leaseContract('redis', async () => {
  fixtures += 1;
  const keyPrefix = `lease-test-${fixtures}:`;
  const others: RedisConnection[] = [];
  return {
    lease: createRedisLease(connection, { keyPrefix }),
    openAnother: async () => {
      others.push(await openRedis(redis.url));
      return createRedisLease(others[others.length - 1], { keyPrefix });
    },
    cleanup: async () => {
      for (const other of others) await other.quit();
    },
  };
});

jobQueueContract('bullmq', async () => {
  fixtures += 1;
  const queue = createBullJobQueue({ connection, prefix: `queue-test-${fixtures}` });
  return { queue, cleanup: () => queue.close() };
});

const root = resolve(import.meta.dirname, '../..');

/** Runs `script` (TypeScript, top-level await) under Bun from the repository root; returns its last stdout line as JSON. */
function runUnderBun(script: string): unknown {
  const result = spawnSync(join(root, 'node_modules/.bin/bun'), ['-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`bun exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null');
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e);

describe('openRedis', () => {
  const password = 'pw-Redis-9f2c/+:secret';
  let locked: RunningRedis;
  beforeAll(async () => {
    locked = await startRedis({ password });
  });
  afterAll(async () => {
    await locked?.stop();
  });

  it('connects with the password of the URL, for the default user named or not', async () => {
    for (const url of [locked.url, `redis://default:${encodeURIComponent(password)}@127.0.0.1:${locked.port}/1`]) {
      const client = await openRedis(url);
      expect(client).toBeInstanceOf(Redis);
      await client.set('k', url);
      expect(await client.get('k')).toBe(url);
      await client.quit();
    }
    expect(locked.cli('-n', '1', 'get', 'k').trim()).toContain('/1');
  });

  it('fails without the password or with a wrong one with store_unreachable that never shows the password', async () => {
    for (const url of [`redis://127.0.0.1:${locked.port}`, `redis://:wrong-${encodeURIComponent(password)}@127.0.0.1:${locked.port}`]) {
      const error = await failureOf(openRedis(url, { connectTimeoutMs: 3000 }));
      expect(isPlatformError(error, 'store_unreachable'), url).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(`redis://127.0.0.1:${locked.port}/0`);
      expect(message).toMatch(/NOAUTH|WRONGPASS/);
      expect(message).not.toContain(password);
      expect(message).not.toContain(encodeURIComponent(password));
    }
  });

  it('fails on a port nobody listens on with store_unreachable, and on a malformed URL with invalid_config', async () => {
    const port = await freePort();
    expect(isPlatformError(await failureOf(openRedis(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 2000 })), 'store_unreachable')).toBe(true);
    for (const url of ['http://127.0.0.1:6379', 'not a url', 'redis://127.0.0.1:6379/x']) {
      const error = await failureOf(openRedis(`${url}`));
      expect(isPlatformError(error, 'invalid_config'), url).toBe(true);
      expect((error as Error).message).toContain('QUEUE_URL');
    }
  });

  it('gives BullMQ a usable connection from a password URL, also when the queue opens its own', async () => {
    const shared = await openRedis(locked.url);
    for (const queue of [createBullJobQueue({ connection: shared }), createBullJobQueue({ connection: locked.url, prefix: 'own' })]) {
      const seen: unknown[] = [];
      const consumer = queue.consume('mail', async (job) => void seen.push(job.data));
      await queue.add('mail', 'send', { to: 'a@x' });
      await eventually(() => expect(seen).toEqual([{ to: 'a@x' }]));
      await consumer.stop();
      await queue.close();
    }
    expect(await shared.ping()).toBe('PONG');
    await shared.quit();
  });
});

describe('on Bun', () => {
  it('opens a password URL, takes a lease and runs a job; a missing password fails with store_unreachable', async () => {
    const locked = await startRedis({ password: 'bun-Pw-31' });
    const script = `
      import { openRedis, createRedisLease, createBullJobQueue } from './core/adapters/redis/index.ts';
      const client = await openRedis(${JSON.stringify(locked.url)});
      const lease = await createRedisLease(client).acquire('dispatcher', 'bun', 10_000);
      const queue = createBullJobQueue({ connection: client });
      const seen = [];
      const consumer = queue.consume('mail', async (job) => { seen.push(job.data); });
      await queue.add('mail', 'send', { from: 'bun' });
      for (let i = 0; i < 500 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await consumer.stop();
      await queue.close();
      await client.quit();
      const refused = await openRedis('redis://127.0.0.1:${locked.port}').then(() => 'opened', (e) => e.code);
      console.log(JSON.stringify({ bun: typeof Bun !== 'undefined', lease, seen, refused }));
    `;
    try {
      expect(runUnderBun(script)).toEqual({ bun: true, lease: true, seen: [{ from: 'bun' }], refused: 'store_unreachable' });
    } finally {
      await locked.stop();
    }
  });
});

describe('createBullJobQueue', () => {
  it('refuses a shared connection that would give up on commands (maxRetriesPerRequest not null)', async () => {
    const client = await openRedis(redis.url, { maxRetriesPerRequest: 3 });
    const error = (() => {
      try {
        createBullJobQueue({ connection: client });
      } catch (e) {
        return e;
      }
    })();
    expect(isPlatformError(error, 'invalid_argument')).toBe(true);
    await client.quit();
  });

  it('refuses queue names and job ids BullMQ reserves with invalid_argument', async () => {
    const queue = createBullJobQueue({ connection, prefix: 'reserved' });
    for (const attempt of [queue.add('a:b', 'n', {}), queue.add('q', 'n', {}, { jobId: '42' }), queue.add('q', 'n', {}, { jobId: 'x:y' }), queue.counts('a:b')]) {
      expect(isPlatformError(await failureOf(attempt), 'invalid_argument')).toBe(true);
    }
    expect(() => queue.consume('a:b', async () => {})).toThrow(/queue name/);
    await queue.close();
  });
});
