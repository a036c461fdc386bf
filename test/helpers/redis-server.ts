/**
 * A real redis-server on a random loopback port for one test file, stopped by PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** A running redis-server. */
export interface RunningRedis {
  url: string;
  port: number;
  /** Runs redis-cli against it; returns stdout. */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

/**
 * Starts redis-server (Debian package) without persistence.
 * @param options - `password`: the server requires it (`--requirepass`); `url` then carries it and `cli` sends it
 */
export async function startRedis(options: { password?: string } = {}): Promise<RunningRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cairn-redis-'));
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...auth], { stdio: 'ignore' });
  const cliAuth = options.password === undefined ? [] : ['-a', options.password, '--no-auth-warning'];
  const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...cliAuth, ...args], { encoding: 'utf8' }).stdout;
  for (let i = 0; i < 100 && cli('ping').trim() !== 'PONG'; i += 1) await new Promise((r) => setTimeout(r, 50));
  if (cli('ping').trim() !== 'PONG') throw new Error('redis-server did not start');
  return {
    url: options.password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${port}`,
    port,
    cli,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
