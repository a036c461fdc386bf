/**
 * createRateLimiter over every shape of queue store `openRedis` answers (a RedisConnection: one server or
 * a cluster, passed without a cast) and in process memory: two limiters with the same prefix share one
 * count, as replicas do. The servers are real redis-server processes on loopback, stopped by PID.
 *
 * Source: spec/semantic-query-service.md § Limits (rate limit per client IP);
 * docs/decisions.md D18 § 3 (N points at once);
 * spec/platform-service.md § Limits (per-user ceiling); docs/decisions.md D6 § 3 (RedisConnection admits a cluster).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { createRateLimiter } from '../../core/adapters/rate-limit/rate-limiter.ts';
import type { RateLimiter } from '../../core/ports/rate-limiter.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-rate-limit-'));
const servers: ChildProcess[] = [];
const connections: RedisConnection[] = [];
let singleUrl: string;
let clusterUrl: string;

/** Starts redis-server with `args` on `port`; resolves once redis-cli `ping` answers. */
async function startServer(port: number, args: string[]): Promise<(...command: string[]) => string> {
  servers.push(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args], { stdio: 'ignore' }));
  const cli = (...command: string[]) => spawnSync('redis-cli', ['-p', String(port), ...command], { encoding: 'utf8' }).stdout.trim();
  for (let i = 0; i < 100 && cli('ping') !== 'PONG'; i += 1) await new Promise((r) => setTimeout(r, 50));
  if (cli('ping') !== 'PONG') throw new Error(`redis-server ${args.join(' ')} did not start`);
  return cli;
}

beforeAll(async () => {
  const [singlePort, clusterPort] = [await freePort(), await freePort()];
  await startServer(singlePort, []);
  const clusterCli = await startServer(clusterPort, ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-announce-ip', '127.0.0.1']);
  clusterCli('cluster', 'addslotsrange', '0', '16383');
  for (let i = 0; i < 100 && !clusterCli('cluster', 'info').includes('cluster_state:ok'); i += 1) await new Promise((r) => setTimeout(r, 50));
  singleUrl = `redis://127.0.0.1:${singlePort}`;
  clusterUrl = `redis://127.0.0.1:${clusterPort}`;
}, 30_000);

afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  for (const server of servers) {
    const exited = new Promise((r) => server.once('exit', r));
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const open = async (url: string): Promise<RedisConnection> => {
  const connection = await openRedis(url);
  connections.push(connection);
  return connection;
};

describe.each([['one server', () => singleUrl], ['a cluster', () => clusterUrl]])('createRateLimiter on %s', (shape, url) => {
  it('shares one count between two connections (replicas) and refuses past the points with a retry time', async () => {
    const [first, second] = [await open(url()), await open(url())];
    if (shape === 'a cluster') expect(first).toBeInstanceOf(Cluster);
    const options = { points: 3, durationSeconds: 60, keyPrefix: `test-${shape.replace(' ', '-')}` };
    const [a, b] = [createRateLimiter({ ...options, redis: first }), createRateLimiter({ ...options, redis: second })];
    const answers = [await a.consume('caller'), await b.consume('caller'), await a.consume('caller'), await b.consume('caller')];
    expect(answers.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(answers.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(answers[3].retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await a.consume('another caller')).allowed).toBe(true);
  });

  it('counts several points at once; a count that does not fit is refused and takes nothing', async () => {
    const [first, second] = [await open(url()), await open(url())];
    const options = { points: 5, durationSeconds: 60, keyPrefix: `test-points-${shape.replace(' ', '-')}` };
    const [one, other] = [first, second].map((redis) => createRateLimiter({ ...options, redis }));
    await expectPointsContract(one, other);
  });
});

/**
 * The contract of `consume(key, points)` every adapter keeps: N points at once, a count that does not fit refused
 * untaken (the window keeps its remaining points for smaller counts), a count above the limit never fits.
 * `a` and `b` share one count (the same store and prefix).
 */
async function expectPointsContract(a: RateLimiter, b: RateLimiter): Promise<void> {
  expect(await a.consume('batch', 3)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 2, limit: 5 });
  const over = await b.consume('batch', 3);
  expect(over).toMatchObject({ allowed: false, remaining: 2, limit: 5 });
  expect(over.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(over.retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(await b.consume('batch', 2)).toMatchObject({ allowed: true, remaining: 0 });
  expect(await a.consume('batch')).toMatchObject({ allowed: false, remaining: 0 });
  expect(await a.consume('fresh', 6)).toMatchObject({ allowed: false, remaining: 5, limit: 5 });
  expect(await b.consume('fresh', 5)).toMatchObject({ allowed: true, remaining: 0 });
  await expect(a.consume('fresh', 0)).rejects.toThrow(/whole number/);
}

describe('createRateLimiter without a queue store', () => {
  it('counts in this process only', async () => {
    const [a, b] = [createRateLimiter({ points: 1, durationSeconds: 60, keyPrefix: 'memory' }), createRateLimiter({ points: 1, durationSeconds: 60, keyPrefix: 'memory' })];
    expect([(await a.consume('x')).allowed, (await a.consume('x')).allowed, (await b.consume('x')).allowed]).toEqual([true, false, true]);
  });

  it('counts several points at once; a count that does not fit is refused and takes nothing', async () => {
    const limiter = createRateLimiter({ points: 5, durationSeconds: 60, keyPrefix: 'memory-points' });
    await expectPointsContract(limiter, limiter);
  });
});
