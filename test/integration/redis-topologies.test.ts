/**
 * openRedis against the other shapes QUEUE_URL may name: a TLS server with an ACL user (rediss://) and a
 * Redis cluster (detected from the server). The Lease and JobQueue contracts run on the cluster too.
 * Both servers are redis-server processes started here (certificates made with the openssl command)
 * and stopped by PID.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullJobQueue, createRedisLease, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { eventually, jobQueueContract } from '../../core/testing/job-queue.contract.ts';
import { leaseContract } from '../../core/testing/lease.contract.ts';
import { freePort } from '../helpers/ports.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-redis-topologies-'));
const children: ChildProcess[] = [];

/** Starts redis-server with `args` and waits until `ping` (redis-cli with `cliArgs`) answers PONG. */
async function startServer(port: number, args: string[], cliArgs: string[]): Promise<(...command: string[]) => string> {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args], { stdio: 'ignore' });
  children.push(child);
  const cli = (...command: string[]) => spawnSync('redis-cli', ['-p', String(port), ...cliArgs, ...command], { encoding: 'utf8' }).stdout.trim();
  for (let i = 0; i < 100 && cli('ping') !== 'PONG'; i++) await new Promise((r) => setTimeout(r, 50));
  if (cli('ping') !== 'PONG') throw new Error(`redis-server ${args.join(' ')} did not start`);
  return cli;
}

/** A CA and a server certificate for localhost / 127.0.0.1, made with the openssl command. */
function makeCertificates(): { ca: string; cert: string; key: string } {
  const run = (...args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=cairn test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.cnf');
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'server.crt'), key: join(dir, 'server.key') };
}

let tlsPort: number;
let ca: string;
let clusterUrl: string;
let cluster: RedisConnection;
const aclPassword = 'acl-Pw-7d1e';

beforeAll(async () => {
  const files = makeCertificates();
  ca = readFileSync(files.ca, 'utf8');
  tlsPort = await freePort();
  const tlsArgs = ['--tls-cert-file', files.cert, '--tls-key-file', files.key, '--tls-ca-cert-file', files.ca, '--tls-auth-clients', 'no'];
  // The default user is switched off: only the ACL user `worker` may connect.
  const acl = ['--user', 'default', 'off', '--user', 'worker', 'on', `>${aclPassword}`, '~*', '&*', '+@all'];
  await startServer(tlsPort, ['--port', '0', '--tls-port', String(tlsPort), ...tlsArgs, ...acl], ['--tls', '--cacert', files.ca, '--user', 'worker', '--pass', aclPassword, '--no-auth-warning']);
  const clusterPort = await freePort();
  const clusterCli = await startServer(
    clusterPort,
    ['--port', String(clusterPort), '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-announce-ip', '127.0.0.1'],
    [],
  );
  clusterCli('cluster', 'addslotsrange', '0', '16383');
  await eventually(() => expect(clusterCli('cluster', 'info')).toContain('cluster_state:ok'));
  clusterUrl = `redis://127.0.0.1:${clusterPort}`;
  cluster = await openRedis(clusterUrl);
});

afterAll(async () => {
  await cluster?.quit();
  for (const child of children) {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid as number, 'SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('openRedis with rediss:// and an ACL user', () => {
  it('connects over TLS as the URL user and runs a lease and a queue', async () => {
    const client = await openRedis(`rediss://worker:${aclPassword}@localhost:${tlsPort}`, { tls: { ca } });
    expect(client).toBeInstanceOf(Redis);
    expect(await client.acl('WHOAMI')).toBe('worker');
    expect(await createRedisLease(client).acquire('dispatcher', 'host-a', 10_000)).toBe(true);
    const queue = createBullJobQueue({ connection: client });
    const seen: unknown[] = [];
    const consumer = queue.consume('mail', async (job) => void seen.push(job.data));
    await queue.add('mail', 'send', { over: 'tls' });
    await eventually(() => expect(seen).toEqual([{ over: 'tls' }]));
    await consumer.stop();
    await queue.close();
    await client.quit();
  });

  it('fails with store_unreachable, never showing the password, for a wrong user, an untrusted certificate or plain redis://', async () => {
    const urls: Array<[string, { tls?: { ca: string } }]> = [
      [`rediss://default:${aclPassword}@localhost:${tlsPort}`, { tls: { ca } }],
      [`rediss://worker:${aclPassword}@localhost:${tlsPort}`, {}],
      [`redis://worker:${aclPassword}@localhost:${tlsPort}`, {}],
    ];
    for (const [url, options] of urls) {
      const error = await openRedis(url, { ...options, connectTimeoutMs: 3000 }).then(() => undefined, (e: unknown) => e);
      expect(isPlatformError(error, 'store_unreachable'), url).toBe(true);
      expect((error as Error).message).not.toContain(aclPassword);
    }
  });
});

describe('openRedis with a cluster', () => {
  it('detects cluster mode from the server and returns a Cluster client', async () => {
    expect(cluster).toBeInstanceOf(Cluster);
    await cluster.set('k', 'v');
    expect(await cluster.get('k')).toBe('v');
  });

  it('keeps a turn queue fair on a cluster: the interactive turn first, then round robin between tenants', async () => {
    const queue = createBullJobQueue({ connection: cluster, fairQueues: ['turns'] });
    const add = (id: string, lane: 'interactive' | 'background', tenant: string) =>
      queue.add('turns', 'turn', { id }, { jobId: id, place: { lane, tenant, group: 'g' } });
    try {
      for (const id of ['a1', 'a2', 'a3']) await add(id, 'background', 'org-a');
      await add('b1', 'background', 'org-b');
      await add('c1', 'interactive', 'org-c');
      const taken: string[] = [];
      const consumer = queue.consume('turns', async (job) => void taken.push(job.id), { concurrency: 1 });
      await eventually(() => expect(taken).toEqual(['c1', 'a1', 'b1', 'a2', 'a3']));
      await consumer.stop();
    } finally {
      await queue.close();
    }
  });
});

let fixtures = 0;

leaseContract('redis cluster', async () => {
  fixtures += 1;
  const keyPrefix = `lease-${fixtures}:`;
  const others: RedisConnection[] = [];
  return {
    lease: createRedisLease(cluster, { keyPrefix }),
    openAnother: async () => {
      others.push(await openRedis(clusterUrl));
      return createRedisLease(others[others.length - 1], { keyPrefix });
    },
    cleanup: async () => {
      for (const other of others) await other.quit();
    },
  };
});

jobQueueContract('bullmq on a redis cluster', async () => {
  fixtures += 1;
  const queue = createBullJobQueue({ connection: cluster, prefix: `queue-${fixtures}` });
  return { queue, cleanup: () => queue.close() };
});
