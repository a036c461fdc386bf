/**
 * A real worker host for tests: `bun bins/worker-host/main.ts` (or dist/worker-host) on a free loopback
 * port with a key, its output lines kept; and a remote launcher pointed at it.
 * Source: spec/platform-service.md § Rules 10.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createRemoteWorkerLauncher } from '../../core/adapters/worker-host/index.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';

/** The key every test host holds (32 bytes), and another one. */
export const hostKey = Buffer.alloc(32, 0x5a);
export const otherKey = Buffer.alloc(32, 0x33);

/** A free loopback port (closed again before use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running worker host: its port, every output line (stdout and stderr), and stop. */
export interface TestWorkerHost {
  port: number;
  lines: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a worker host from sources (or `command`) with `env` added to a clean environment, and waits
 * for its `serving workers` line.
 */
export async function startTestWorkerHost(env: Record<string, string> = {}, command: string[] = [bunPath, join(repoRoot, 'bins/worker-host/main.ts')]): Promise<TestWorkerHost> {
  const port = await freePort();
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH!, PLATFORM_WORKER_HOST_KEY: hostKey.toString('base64'), PLATFORM_WORKER_HOST_PORT: String(port), PLATFORM_WORKER_HOST_BIND: '127.0.0.1', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (lines.some((line) => line.startsWith('[worker-host] serving workers'))) (clearInterval(timer), resolve());
      else if (child.exitCode !== null) (clearInterval(timer), reject(new Error(`the worker host exited: ${lines.join('\n')}`)));
    }, 20);
  });
  return { port, lines, child, stop: async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); await exited; } };
}

/** A remote launcher for `host` holding `key` (default the host's), its `[worker] …` lines kept. */
export function remoteLauncher(host: Pick<TestWorkerHost, 'port'>, key: Uint8Array = hostKey) {
  const lines: string[] = [];
  const launcher = createRemoteWorkerLauncher({ host: '127.0.0.1', port: host.port, key, slots: { turn: 2, call: 2 }, log: (line) => lines.push(line) });
  return { launcher, lines };
}

/** Waits until `check` holds (polling every 20 ms). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
