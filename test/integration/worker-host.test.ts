/**
 * The worker host as a real process (bun bins/worker-host/main.ts) and the remote launcher of a
 * dispatching process: a hook's broker round trip and an echo over TLS, both sides proving the key (a
 * wrong key refused and logged with no key byte; a host that cannot prove the key gets no job), limits,
 * cancellation and a lost connection, each ending only that run while the host keeps serving.
 * Source: spec/platform-service.md § Rules 6–7, 10; § Deployment settings (PLATFORM_WORKER_HOST*);
 * § Operational log lines ([worker-host], [worker]).
 */
import { connect as netConnect } from 'node:net';
import { connect, createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteWorkerLauncher } from '../../core/adapters/worker-host/index.ts';
import { makeSelfSignedCertificate } from '../../core/adapters/worker-host/self-signed.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { freePort, hostKey, otherKey, remoteLauncher, startTestWorkerHost, until, type TestWorkerHost } from './worker-host-process.ts';

const roomy = { memoryMb: 512, wallTimeSeconds: 120 };
const hookSource = `export default async (input) => {
  const answer = await platform.call('tools.lookup', { city: input.city });
  let refused;
  try { await platform.call('tools.missing', {}); } catch (error) { refused = [error.code, error.message]; }
  return { answer, refused, doubled: input.n * 2 };
}`;
const keySpellings = (key: Buffer) => [key.toString('base64'), key.toString('hex'), key.toString('base64url')];

describe('worker host', () => {
  let host: TestWorkerHost;
  beforeAll(async () => { host = await startTestWorkerHost(); }, 60_000);
  afterAll(async () => { await host?.stop(); });

  const echoStillServes = async (subject: string) => {
    const { launcher } = remoteLauncher(host);
    expect(await launcher.run({ kind: 'call', subject, task: 'echo', payload: { ok: subject }, limits: roomy, broker: async () => null })).toEqual({ ended: 'finished', result: { ok: subject } });
  };

  it('runs a hook whose platform.call crosses the TLS connection to this process\'s broker, and an echo; both sides log the worker', async () => {
    const { launcher, lines } = remoteLauncher(host);
    const requests: unknown[] = [];
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-remote', task: 'hook', limits: roomy, payload: { source: hookSource, input: { city: 'Oslo', n: 21 } },
      broker: async (op, args) => {
        requests.push({ op, args });
        if (op === 'tools.missing') throw new PlatformError('not_found', 'no tool tools.missing');
        return { temperature: 4 };
      },
    });
    expect(outcome).toEqual({ ended: 'finished', result: { answer: { temperature: 4 }, refused: ['not_found', 'no tool tools.missing'], doubled: 42 } });
    expect(requests).toEqual([{ op: 'tools.lookup', args: { city: 'Oslo' } }, { op: 'tools.missing', args: {} }]);
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-remote \(finished\)$/)]);
    const pid = /worker (\d+) for/.exec(lines[0]!)![1];
    await until(() => host.lines.some((line) => line.includes(`ended turn worker ${pid}`)));
    expect(host.lines.filter((line) => line.includes('turn t-remote'))).toEqual([
      `[worker-host] started turn worker ${pid} for turn t-remote`, `[worker-host] ended turn worker ${pid} for turn t-remote (finished)`,
    ]);
    await echoStillServes('call c-echo');
  });

  it('its workers get a dispatcher\'s isolation: their own PID space, no network but their own loopback', async () => {
    const { launcher } = remoteLauncher(host);
    const outcome = await launcher.run({
      kind: 'call', subject: 'call c-isolation', task: 'isolation', payload: null, limits: roomy,
      broker: async () => null,
    });
    expect(outcome).toEqual({ ended: 'finished', result: { pid: 2, ppid: 1, interfaces: ['lo'] } });
  });

  it('refuses a dispatching process holding another key, logging its address and no key byte', async () => {
    const { launcher, lines } = remoteLauncher(host, otherKey);
    const before = host.lines.length;
    const outcome = await launcher.run({ kind: 'turn', subject: 'turn t-wrong-key', task: 'echo', payload: 'secret payload', limits: roomy, broker: async () => null });
    expect(outcome).toEqual({ ended: 'failed', reason: 'refused to start', message: `the turn worker could not start: the worker host 127.0.0.1:${host.port} and this process do not hold the same PLATFORM_WORKER_HOST_KEY` });
    expect(lines).toEqual(['[worker] ended turn worker (not started) for turn t-wrong-key (refused to start)']);
    await until(() => host.lines.length > before);
    expect(host.lines.slice(before)).toEqual(['[worker-host] refused a connection from 127.0.0.1: it does not hold the key']);
    const everything = host.lines.join('\n') + JSON.stringify(outcome) + lines.join('\n');
    for (const spelling of [...keySpellings(hostKey), ...keySpellings(otherKey)]) expect(everything).not.toContain(spelling);
  });

  it('answers a peer with a made-up proof nothing at all, and closes the connection', async () => {
    const before = host.lines.length;
    const received = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: host.port, rejectUnauthorized: false }, () => socket.write(`${JSON.stringify({ type: 'proof', proof: Buffer.alloc(32).toString('base64url') })}\n`));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(data));
    });
    expect(received).toBe('');
    await until(() => host.lines.length > before);
    expect(host.lines.slice(before)).toEqual(['[worker-host] refused a connection from 127.0.0.1: it does not hold the key']);
  });

  it('refuses and logs a connection that does not speak TLS', async () => {
    const before = host.lines.length;
    await new Promise<void>((resolve) => {
      const socket = netConnect(host.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
    await until(() => host.lines.length > before);
    expect(host.lines.slice(before)).toEqual(['[worker-host] refused a connection from 127.0.0.1: it does not hold the key']);
  });

  it('a worker exceeding its memory limit, then one exceeding its wall time, end only their runs; the host keeps serving', async () => {
    const { launcher, lines } = remoteLauncher(host);
    const memory = await launcher.run({
      kind: 'turn', subject: 'turn t-memory', task: 'hook', limits: { memoryMb: 128, wallTimeSeconds: 120 }, broker: async () => null,
      payload: { source: 'export default () => { const kept = []; for (let i = 0; ; i++) kept.push("x".repeat(1 << 20) + i); }', timeoutMs: 600_000 },
    });
    expect(memory).toEqual({ ended: 'failed', reason: 'exceeded a limit', limit: 'memory', message: 'the turn worker exceeded its memory limit (PLATFORM_WORKER_TURN_MEMORY_MB = 128 MiB)' });
    const wall = await launcher.run({
      kind: 'call', subject: 'call c-loop', task: 'hook', limits: { memoryMb: 256, wallTimeSeconds: 1 }, broker: async () => null,
      payload: { source: 'export default () => { for (;;) {} }', timeoutMs: 600_000 },
    });
    expect(wall).toEqual({ ended: 'failed', reason: 'exceeded a limit', limit: 'wall time', message: 'the call worker exceeded its wall-time limit (PLATFORM_WORKER_CALL_SECONDS = 1 s)' });
    expect(lines).toEqual([
      expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-memory \(exceeded a limit\)$/),
      expect.stringMatching(/^\[worker\] ended call worker \d+ for call c-loop \(exceeded a limit\)$/),
    ]);
    await until(() => host.lines.some((line) => line.includes('for call c-loop (')));
    expect(host.lines.filter((line) => /ended .* for (turn t-memory|call c-loop) /.test(line))).toEqual([
      expect.stringMatching(/^\[worker-host\] ended turn worker \d+ for turn t-memory \(exceeded a limit\)$/),
      expect.stringMatching(/^\[worker-host\] ended call worker \d+ for call c-loop \(exceeded a limit\)$/),
    ]);
    await echoStillServes('call c-after-limits');
  });

  it('cancelling a run ends its worker on the host (signalled); the host keeps serving', async () => {
    const { launcher, lines } = remoteLauncher(host);
    const controller = new AbortController();
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-cancel', task: 'hook', limits: roomy, signal: controller.signal,
      payload: { source: 'export default async () => { await platform.call("started"); return await platform.call("never"); }' },
      broker: async (op) => {
        if (op === 'started') setTimeout(() => controller.abort(), 0);
        return new Promise(() => undefined);
      },
    });
    expect(outcome).toEqual({ ended: 'failed', reason: 'signalled', message: 'the turn worker was stopped: its run was cancelled' });
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-cancel \(signalled\)$/)]);
    await until(() => host.lines.some((line) => line.includes('for turn t-cancel (')));
    expect(host.lines).toContainEqual(expect.stringMatching(/^\[worker-host\] ended turn worker \d+ for turn t-cancel \(signalled\)$/));
    await echoStillServes('call c-after-cancel');
  });
});

describe('worker host: the dispatching side', () => {
  it('a run whose host goes away mid-run ends with lost its channel', async () => {
    const host = await startTestWorkerHost();
    const { launcher, lines } = remoteLauncher(host);
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-lost', task: 'hook', limits: roomy, payload: { source: 'export default async () => platform.call("wait")' },
      broker: async () => (host.child.kill('SIGKILL'), new Promise(() => undefined)),
    });
    await host.stop();
    expect(outcome).toEqual({ ended: 'failed', reason: 'lost its channel', message: `the turn worker lost its channel: the connection to the worker host 127.0.0.1:${host.port} ended before the worker answered` });
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-lost \(lost its channel\)$/)]);
  }, 60_000);

  it('never sends its job to a host that cannot prove the key', async () => {
    const received: string[] = [];
    const server: Server = createServer({ ...makeSelfSignedCertificate(), minVersion: 'TLSv1.3' }, (socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received.push(...chunk.split('\n').filter(Boolean));
        socket.write(`${JSON.stringify({ type: 'proof', proof: Buffer.alloc(32, 1).toString('base64url') })}\n`);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const lines: string[] = [];
    const launcher = createRemoteWorkerLauncher({ host: '127.0.0.1', port, key: hostKey, slots: { turn: 1, call: 1 }, log: (line) => lines.push(line) });
    const outcome = await launcher.run({ kind: 'turn', subject: 'turn t-impostor', task: 'echo', payload: 'the job', limits: roomy, broker: async () => null });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'refused to start' });
    expect(received.map((line) => JSON.parse(line).type)).toEqual(['proof']);
    expect(received.join('')).not.toContain('the job');
  });

  it('an unreachable host refuses the start, naming the address', async () => {
    const port = await freePort();
    const { launcher, lines } = remoteLauncher({ port });
    const outcome = await launcher.run({ kind: 'call', subject: 'call c-nowhere', task: 'echo', payload: 1, limits: roomy, broker: async () => null });
    expect(outcome).toEqual({ ended: 'failed', reason: 'refused to start', message: `the call worker could not start: the worker host 127.0.0.1:${port} could not be reached (ECONNREFUSED)` });
    expect(lines).toEqual(['[worker] ended call worker (not started) for call c-nowhere (refused to start)']);
  });
});
