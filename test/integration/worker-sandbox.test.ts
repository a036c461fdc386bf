/**
 * The worker sandbox, one test per door: from inside a real worker started by the launcher (bubblewrap
 * namespaces plus the permission model), loopback TCP to a listening server, UDP, a foreign Unix socket (by path
 * and abstract), the API's and redis's ports, a signal to the parent and to a sibling process,
 * `process._debugProcess`, the inspector and /proc/<ppid>/environ each fail; the very same probe run in the test
 * process succeeds (the positive control: the door exists, and the probe can open it). Where namespaces are not
 * available, production refuses to start workers with a line saying why; elsewhere they run under the permission
 * model alone after a warning line.
 * Source: spec/platform-service.md § Rules 6, 8; docs/decisions.md D17 § 3.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledWorkerProgram, createWorkerLauncher } from '../../core/adapters/worker/index.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import type { WorkerOutcome } from '../../core/ports/worker.ts';
import { sandboxProbes } from '../fixtures/sandbox-probes.ts';
import {
  probesEntry, recordingBroker, repoRoot, roomyLimits, testLauncher, testSettings,
} from '../fixtures/worker-launcher.ts';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

const node = join(import.meta.dirname, '../../node_modules/.bin/node');

/** A server answering `hello` to every connection, listening where `listen` says. */
function helloServer(listen: (server: Server, ready: () => void) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.end('hello\n'));
    listen(server, () => resolve(server));
  });
}

/** A plain Node process (no sandbox, no --disable-sigusr1) saying when it got SIGUSR2; its inspector port is free. */
function sibling(): Promise<{ child: ChildProcess; said(): string }> {
  const script = 'process.on("SIGUSR2", () => console.log("got SIGUSR2")); setInterval(() => {}, 1e6); '
    + 'console.log("ready")';
  const child = spawn(node, ['--inspect-port=0', '-e', script]);
  let said = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return new Promise((resolve) => child.stdout!.once('data', () => resolve({ child, said: () => said })));
}

/** Waits (polling every 20 ms, at most 10 s) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('worker sandbox: each door is shut inside a worker and open outside it', () => {
  const { launcher } = testLauncher();
  const inside = (task: string, payload: unknown): Promise<WorkerOutcome> =>
    launcher.run({
      kind: 'turn', subject: `turn t-${task}`, task, payload, limits: roomyLimits, broker: recordingBroker().broker,
      entryFile: probesEntry,
    });
  const outside = (task: string, payload: unknown): Promise<unknown> => sandboxProbes[task](payload);
  /** The probe fails inside the worker with a message matching `why`. */
  const shut = async (task: string, payload: unknown, why: RegExp) => {
    const outcome = await inside(task, payload);
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error' });
    expect(outcome.ended === 'failed' ? outcome.message : '').toMatch(why);
  };
  let redis: RunningRedis;
  let api: RunningApi;
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    expect(await launcher.sandbox()).toEqual({ mode: 'namespaces', bwrap: expect.stringMatching(/\/bwrap$/) });
    redis = await startRedis();
    api = await startApi(redis.url);
  }, 120_000);
  afterAll(async () => {
    for (const close of closers) close();
    await api?.stop();
    await redis?.stop();
  });

  it('the worker runs in its own PID space (pid 2 under bubblewrap\'s init) with only its own loopback', async () => {
    const result = { pid: 2, ppid: 1, interfaces: ['lo'] };
    expect(await inside('isolation', null)).toEqual({ ended: 'finished', result });
  });

  it('loopback TCP: a server listening on 127.0.0.1', async () => {
    const server = await helloServer((s, ready) => s.listen(0, '127.0.0.1', ready));
    closers.push(() => server.close());
    const { port } = server.address() as { port: number };
    expect(await outside('connect', { port, send: '' })).toEqual({ connected: true, answer: 'hello\n' });
    await shut('connect', { port, send: '' }, /ECONNREFUSED/);
  });

  it('UDP: a datagram to a socket on 127.0.0.1 never arrives; the one sent outside does', async () => {
    const received: string[] = [];
    const socket: UdpSocket = createSocket('udp4');
    socket.on('message', (message) => received.push(message.toString()));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    closers.push(() => socket.close());
    const { port } = socket.address();
    await inside('sendUdp', { port, message: 'from inside' });
    await outside('sendUdp', { port, message: 'from outside' });
    await until(() => received.length > 0);
    expect(received).toEqual(['from outside']);
  });

  it('a foreign Unix socket: by path outside the worker\'s folder, and in the abstract namespace', async () => {
    const path = join(tmpdir(), `cairn-sandbox-${process.pid}.sock`);
    rmSync(path, { force: true });
    const byPath = await helloServer((s, ready) => s.listen(path, ready));
    const abstract = `\0cairn-sandbox-${process.pid}`;
    const byName = await helloServer((s, ready) => s.listen(abstract, ready));
    closers.push(() => byPath.close(), () => byName.close());
    expect(await outside('connect', { path, send: '' })).toEqual({ connected: true, answer: 'hello\n' });
    expect(await outside('connect', { path: abstract, send: '' })).toEqual({ connected: true, answer: 'hello\n' });
    await shut('connect', { path, send: '' }, /ENOENT/);
    await shut('connect', { path: abstract, send: '' }, /ECONNREFUSED/);
  });

  it('the queue store\'s port: a real redis-server answers PING outside, not inside', async () => {
    const pong = { connected: true, answer: '+PONG\r\n' };
    expect(await outside('connect', { port: redis.port, send: 'PING\r\n' })).toEqual(pong);
    await shut('connect', { port: redis.port, send: 'PING\r\n' }, /ECONNREFUSED/);
  });

  it('the API\'s port: the real API answers HTTP outside, not inside', async () => {
    const port = Number(new URL(api.url).port);
    const request = `GET / HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const answered = { connected: true, answer: expect.stringMatching(/^HTTP\/1\.[01] \d{3}/) };
    expect(await outside('connect', { port, send: request })).toMatchObject(answered);
    await shut('connect', { port, send: request }, /ECONNREFUSED/);
  });

  it('a signal to the parent (the launcher\'s own process): it is not even visible inside', async () => {
    expect(await outside('signal', { pid: process.pid, signal: 0 })).toEqual({ delivered: true });
    await shut('signal', { pid: process.pid, signal: 0 }, /ESRCH/);
  });

  it('a signal to a sibling process: it arrives from outside only', async () => {
    const { child, said } = await sibling();
    closers.push(() => child.kill('SIGKILL'));
    await shut('signal', { pid: child.pid, signal: 'SIGUSR2' }, /ESRCH/);
    expect(said()).not.toContain('got SIGUSR2');
    expect(await outside('signal', { pid: child.pid, signal: 'SIGUSR2' })).toEqual({ delivered: true });
    await until(() => said().includes('got SIGUSR2'));
    expect(said()).toContain('got SIGUSR2');
  });

  it('process._debugProcess: a sibling\'s inspector starts from outside only', async () => {
    const { child, said } = await sibling();
    closers.push(() => child.kill('SIGKILL'));
    await shut('debugProcess', { pid: child.pid }, /ESRCH/);
    expect(said()).not.toMatch(/Debugger listening/);
    expect(await outside('debugProcess', { pid: child.pid })).toEqual({ debugging: true });
    await until(() => /Debugger listening/.test(said()));
    expect(said()).toMatch(/Debugger listening on ws:\/\/127\.0\.0\.1:\d+\//);
  });

  it('the worker\'s own inspector cannot be opened', async () => {
    expect(await outside('openInspector', null)).toEqual({ inspector: true });
    const outcome = await inside('openInspector', null);
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error', code: 'worker_permission_refused' });
  });

  it('/proc/<ppid>/environ: the parent\'s environment is read outside only', async () => {
    expect(await outside('readEnviron', { pid: process.pid })).toEqual({ bytes: expect.any(Number) });
    const outcome = await inside('readEnviron', { pid: process.pid });
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error' });
    expect(JSON.stringify(outcome)).not.toContain(process.env.PATH ?? 'PATH');
  });
});

describe('where namespaces are not available', () => {
  const run = (production: boolean) => {
    const lines: string[] = [];
    // No bubblewrap on this PATH: the same as a kernel that refuses namespaces.
    const launcher = createWorkerLauncher({
      program: bundledWorkerProgram({ appDir: repoRoot }), slots: { turn: 1, call: 1 },
      environment: (kind, memoryMb) => workerEnvironment(testSettings, { kind, memoryLimitMb: memoryMb }),
      log: (line) => lines.push(line), path: '/nonexistent', production,
    });
    const broker = recordingBroker().broker;
    const job = { kind: 'turn' as const, subject: 'turn t-none', task: 'echo', payload: 1, limits: roomyLimits };
    return { lines, outcome: launcher.run({ ...job, broker }) };
  };

  it('production refuses to start workers, with one line saying why', async () => {
    const { lines, outcome } = run(true);
    const why = 'workers need network and PID namespaces and bubblewrap (bwrap) is not installed';
    const refused = await outcome;
    expect(refused).toMatchObject({ ended: 'failed', reason: 'refused to start' });
    expect(refused.ended === 'failed' && refused.message).toContain(`the turn worker could not start: ${why}`);
    expect(refused.ended === 'failed' && refused.message).toContain('PLATFORM_WORKER_ISOLATION=permission-only');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\[worker\\] refusing to start workers: ${why.replace(/[()]/g, '\\$&')}`)),
      '[worker] ended turn worker (not started) for turn t-none (refused to start)',
    ]);
  });

  it('outside production workers run under the permission model alone, after a warning line', async () => {
    const { lines, outcome } = run(false);
    expect(await outcome).toEqual({ ended: 'finished', result: 1 });
    expect(lines[0]).toMatch(/^\[worker\] warning: bubblewrap \(bwrap\) is not installed.*outside production workers/);
  });
});
