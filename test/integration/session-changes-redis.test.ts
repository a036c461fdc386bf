/**
 * Change notifications over a real redis-server (core/adapters/redis/text-deltas.ts): a notification published by
 * one process's connection reaches the watchers of another on the live-text channel of the chat, text deltas and
 * notifications on that channel reach only their own listeners, and after the queue store restarts the subscriber
 * subscribes again and tells every watcher to read again (notifications in between were lost); later ones arrive.
 * Source: spec/platform-service.md § AG-UI request (rule 3); docs/architecture.md § Queues and collections.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTextDeltas, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import type { TextDelta } from '../../core/ports/text-deltas.ts';
import { freePort } from '../helpers/ports.ts';

/** Resolves once `check` answers true; fails after `timeoutMs` saying what it waited for. */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let port: number;
let dir: string;
let server: ChildProcess;
const ping = () => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim();

/** Starts redis-server on `port` (the same port after a restart) and waits for its PONG. */
async function startServer(): Promise<void> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  server = spawn('redis-server', args, { stdio: 'ignore' });
  await until('redis-server to answer', () => ping() === 'PONG');
}
async function stopServer(): Promise<void> {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGKILL');
  await exited;
}

let publisher: RedisConnection;
let reader: RedisConnection;

beforeAll(async () => {
  port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'cairn-changes-'));
  await startServer();
  publisher = await openRedis(`redis://127.0.0.1:${port}`);
  reader = await openRedis(`redis://127.0.0.1:${port}`);
  publisher.on('error', () => undefined);
  reader.on('error', () => undefined);
});
afterAll(async () => {
  publisher?.disconnect();
  reader?.disconnect();
  await stopServer();
  rmSync(dir, { recursive: true, force: true });
});

describe('change notifications on the queue store', () => {
  it('reach another process\'s watchers of the chat only; deltas on its channel reach only delta listeners', async () => {
    const dispatcher = createRedisTextDeltas(publisher);
    const api = createRedisTextDeltas(reader);
    const changes: string[] = [];
    const deltas: TextDelta[] = [];
    const stopChanges = await api.watch('root-1', () => changes.push('root-1'));
    const stopOther = await api.watch('root-2', () => changes.push('root-2'));
    const stopDeltas = await api.subscribe('root-1', (delta) => deltas.push(delta));
    dispatcher.changed('root-1');
    const delta = { rootId: 'root-1', sessionId: 'root-1', messageId: 'root-1:1', offset: 0, text: 'Hi' };
    dispatcher.publish(delta);
    await until('the notification and the delta', () => changes.length === 1 && deltas.length === 1);
    expect(changes).toEqual(['root-1']);
    expect(deltas).toEqual([delta]);
    stopChanges();
    stopOther();
    stopDeltas();
    dispatcher.changed('root-1');
    dispatcher.publish(delta);
    expect(await publisher.publish('cairn:text:root-1', 'changed')).toBe(0);
    api.close();
  });

  it('after a queue store restart, subscribes again and wakes every watcher; later notifications arrive', async () => {
    const dispatcher = createRedisTextDeltas(publisher);
    const api = createRedisTextDeltas(reader);
    let woken = 0;
    await api.watch('root-3', () => { woken += 1; });
    dispatcher.changed('root-3');
    await until('the first notification', () => woken === 1);
    await stopServer();
    await startServer();
    // Nothing was published: the wake-up is the watcher's cue that notifications may have been lost.
    await until('the wake-up after the restart', () => woken === 2, 20_000);
    const delivered = async () => (await publisher.publish('cairn:text:root-3', 'changed')) === 1;
    await until('a subscriber again', delivered, 20_000);
    await until('the notification after the restart', () => woken === 3);
    api.close();
  }, 60_000);
});
