/**
 * The embedded queue store keeps its data (docs/architecture.md § Queue store; platform-service.md § Rules 9):
 * a real redis-server started from the entrypoint's spec keeps what it acknowledged across kill -9 and a start
 * with a new password; a second entrypoint on the same data runs its store in memory only; the owner file of a
 * process that is gone, or untouched for 30 s, is taken over.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/ports.ts';
import { embeddedQueue, type EmbeddedQueue } from './embedded-queue.ts';
import { takeQueueStoreLock } from './queue-store-lock.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-eq-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(queue: EmbeddedQueue): ChildProcess {
  const { command, args, cwd, env } = queue.spec;
  const child = spawn(command, args, { cwd, env, stdio: 'ignore' });
  children.push(child);
  return child;
}
const cli = (queue: EmbeddedQueue, ...args: string[]) => {
  const url = new URL(queue.url);
  const options = ['-p', url.port, '-a', decodeURIComponent(url.password), '--no-auth-warning'];
  return spawnSync('redis-cli', [...options, ...args], { encoding: 'utf8' }).stdout.trim();
};
async function ready(queue: EmbeddedQueue): Promise<void> {
  for (let i = 0; i < 100 && cli(queue, 'ping') !== 'PONG'; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(cli(queue, 'ping')).toBe('PONG');
}
const killed = (child: ChildProcess) => new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGKILL');
});

describe('the embedded queue store', () => {
  it('keeps every acknowledged write across kill -9, and again after a start with a new password', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = await embeddedQueue({ dataDir, runDir: join(tempDir(), 'run'), port, maxMemory: '64mb' });
    expect(first.persistentDir).toBe(join(dataDir, 'redis'));
    const config = readFileSync(first.spec.args[0], 'utf8');
    expect(config).toMatch(/^appendonly yes$/m);
    expect(config).toMatch(/^appendfsync everysec$/m);
    const child = run(first);
    await ready(first);
    for (let i = 0; i < 200; i += 1) expect(cli(first, 'rpush', 'jobs', `job-${i}`)).toBe(String(i + 1));
    await killed(child);
    run(first);
    await ready(first);
    expect(cli(first, 'llen', 'jobs')).toBe('200');
    // The entrypoint starts again (the supervisor's restart keeps the password; a new entrypoint makes a new one).
    children.forEach((c) => c.kill('SIGKILL'));
    first.release();
    const secondPort = await freePort();
    const secondRun = join(tempDir(), 'run');
    const second = await embeddedQueue({ dataDir, runDir: secondRun, port: secondPort, maxMemory: '64mb' });
    expect(second.url).not.toBe(first.url);
    run(second);
    await ready(second);
    expect(cli(second, 'lindex', 'jobs', '199')).toBe('job-199');
    const wrong = { ...second, url: second.url.replace(/:[0-9a-f]+@/, ':wrong@') };
    expect(cli(wrong, 'llen', 'jobs')).toMatch(/WRONGPASS|NOAUTH/);
  });

  it('writes appendfsync always when asked, and removes its configuration when released', async () => {
    const runDir = join(tempDir(), 'run');
    const options = { dataDir: tempDir(), runDir, port: 1, maxMemory: '1mb', appendFsync: 'always' as const };
    const queue = await embeddedQueue(options);
    expect(readFileSync(queue.spec.args[0], 'utf8')).toMatch(/^appendfsync always$/m);
    queue.release();
    // Released, its configuration (with the password) is gone.
    expect(existsSync(runDir)).toBe(false);
  });

  it('runs in memory only, naming the holder, when another live entrypoint holds <data>/redis', async () => {
    const dataDir = tempDir();
    const redisDir = join(dataDir, 'redis');
    mkdirSync(redisDir);
    const taken = takeQueueStoreLock(redisDir, { host: 'elsewhere', pid: 4242, alive: () => true });
    expect('lock' in taken).toBe(true);
    const runDir = join(tempDir(), 'run');
    const queue = await embeddedQueue({ dataDir, runDir, port: 1, maxMemory: '1mb', lockWaitMs: 1200 });
    expect(queue.persistentDir).toBeUndefined();
    expect(queue.heldBy).toEqual({ host: 'elsewhere', pid: 4242 });
    const config = readFileSync(queue.spec.args[0], 'utf8');
    expect(config).toMatch(/^appendonly no$/m);
    expect(config).not.toContain(`dir ${redisDir}`);
  });

  it('waits for an owner file of another host to lapse, then keeps the data itself', async () => {
    const dataDir = tempDir();
    const redisDir = join(dataDir, 'redis');
    mkdirSync(redisDir);
    const crashed = takeQueueStoreLock(redisDir, { host: 'replaced-container', pid: 1, alive: () => true });
    expect('lock' in crashed).toBe(true);
    const lines: string[] = [];
    const runDir = join(tempDir(), 'run');
    const starting = embeddedQueue({ dataDir, runDir, port: 1, maxMemory: '1mb', log: (l) => lines.push(l) });
    // The crashed container stops touching its owner file: it lapses 30 s after the last touch.
    const old = new Date(Date.now() - 31_000);
    utimesSync(join(redisDir, 'owner.json'), old, old);
    const queue = await starting;
    expect(queue.persistentDir).toBe(redisDir);
    expect(lines).toEqual([`${redisDir} is held by host replaced-container: waiting up to 40 s for it to lapse`]);
    queue.release();
  });

  it('takes over an owner file of a gone process on this host, or one untouched for 30 s', () => {
    const dir = tempDir();
    const self = { host: 'h', pid: 100, alive: (pid: number) => pid !== 99 };
    expect('lock' in takeQueueStoreLock(dir, { ...self, pid: 99 })).toBe(true);
    expect('lock' in takeQueueStoreLock(dir, self)).toBe(true);
    expect(takeQueueStoreLock(dir, { ...self, pid: 101 })).toEqual({ heldBy: { host: 'h', pid: 100 } });
    const old = new Date(Date.now() - 31_000);
    utimesSync(join(dir, 'owner.json'), old, old);
    expect('lock' in takeQueueStoreLock(dir, { host: 'other', pid: 5, alive: () => true })).toBe(true);
    const held = takeQueueStoreLock(dir, { host: 'h', pid: 1, alive: () => true });
    expect(held).toEqual({ heldBy: { host: 'other', pid: 5 } });
  });

  it('release removes only its own owner file', () => {
    const dir = tempDir();
    const taken = takeQueueStoreLock(dir, { host: 'h', pid: 1, alive: () => false });
    if (!('lock' in taken)) throw new Error('not taken');
    const second = takeQueueStoreLock(dir, { host: 'h', pid: 2, alive: () => false });
    expect('lock' in second).toBe(true);
    taken.lock.release();
    expect(existsSync(join(dir, 'owner.json'))).toBe(true);
    if ('lock' in second) second.lock.release();
    expect(existsSync(join(dir, 'owner.json'))).toBe(false);
  });
});

