/**
 * The real API (bins/api/main.ts on Bun) as one process on a random loopback port, with its own SQLite
 * document store and file object store in a temporary directory, stopped by PID. Tests drive it over
 * real HTTP and may open the same SQLite file to seed records.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { bunPath, repoRoot } from './product.ts';

/** A running API process. */
export interface RunningApi {
  url: string;
  /** The SQLite document store file the API uses. */
  docdbPath: string;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
  /** Stops the process (keeping its directory, stores and port) and starts it again with `env` instead. */
  restart(env: Record<string, string>): Promise<RunningApi>;
}

/**
 * Starts the API in command mode (listening on PORT) and waits for its `api listening on` line.
 * @param env - added to (and overriding) the base environment: dev-user sign-in, SQLite store, `queueUrl` as QUEUE_URL
 */
export async function startApi(queueUrl: string, env: Record<string, string> = {}, reuse?: { dir: string; port: number }): Promise<RunningApi> {
  const dir = reuse?.dir ?? mkdtempSync(join(tmpdir(), 'cairn-api-'));
  const port = reuse?.port ?? (env.PORT ? Number(env.PORT) : await freePort());
  const docdbPath = join(dir, 'docdb.sqlite');
  // Header lines up to 32 KiB, as the entrypoint starts the API (spec § Limits).
  const child: ChildProcess = spawn(bunPath, ['--max-http-header-size=32768', join(repoRoot, 'bins/api/main.ts')], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH, HOME: dir, NODE_ENV: 'development', DOCDB_URI: `sqlite:${docdbPath}`, OBJSTORE_ENDPOINT: `file://${dir}/objects`,
      OBJSTORE_BUCKET: 'cairn', QUEUE_URL: queueUrl, PLATFORM_SCRATCH_DIR: join(dir, 'scratch'),
      PLATFORM_SKILL_REGISTRIES_DIR: join(dir, 'skill-registries'), API_HOST: '127.0.0.1', PORT: String(port), ...env,
    },
  });
  let printed = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
  const end = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
  const stop = async () => {
    await end();
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 150 && !printed.includes('api listening on'); i += 1) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!printed.includes('api listening on')) {
    await stop();
    throw new Error(`The API did not start:\n${printed}`);
  }
  const restart = async (next: Record<string, string>) => {
    await end();
    return startApi(queueUrl, next, { dir, port });
  };
  return { url: `http://127.0.0.1:${port}`, docdbPath, output: () => printed, stop, restart };
}
