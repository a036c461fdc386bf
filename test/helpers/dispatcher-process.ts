/**
 * The real dispatcher (bins/dispatcher/main.ts on Bun) on the stores of an API started by
 * test/helpers/api-process.ts (same SQLite file, file object store and queue store), stopped by PID before
 * the API (whose stop removes the stores' directory); and a wait for an environment operation to end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { RunningApi } from './api-process.ts';
import { bunPath, repoRoot } from './product.ts';

/** A running dispatcher. */
export interface RunningDispatcher {
  /** The process (for a test that signals it or reads its process tree). */
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a dispatcher on `api`'s stores and waits for its `dispatcher running: queues` line.
 * @param env - added to (and overriding) the API helper's base environment (e.g. the same sign-in settings)
 */
export async function startDispatcher(api: RunningApi, queueUrl: string, env: Record<string, string> = {}): Promise<RunningDispatcher> {
  const dir = dirname(api.docdbPath);
  const child: ChildProcess = spawn(bunPath, [join(repoRoot, 'bins/dispatcher/main.ts')], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH, HOME: dir, NODE_ENV: 'development', DOCDB_URI: `sqlite:${api.docdbPath}`, OBJSTORE_ENDPOINT: `file://${dir}/objects`,
      OBJSTORE_BUCKET: 'cairn', QUEUE_URL: queueUrl, PLATFORM_SCRATCH_DIR: join(dir, 'dispatcher-scratch'), ...env,
    },
  });
  let printed = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 300 && !printed.includes('dispatcher running: queues'); i += 1) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!printed.includes('dispatcher running: queues')) {
    await stop();
    throw new Error(`The dispatcher did not start consuming its queues:\n${printed}`);
  }
  return { child, output: () => printed, stop };
}

/** An environment operation as the API shows it. */
export interface OperationAnswer {
  id: string;
  kind: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  error: { code: string; message: string; problems?: Record<string, unknown>[] } | null;
  result: Record<string, any> | null;
}

/**
 * Reads `GET /api/agents/:agent/operations/:id` every 100 ms until the operation has ended.
 * @param headers - e.g. the caller's bearer token
 * @throws Error with the last answer when it has not ended within 60 s
 */
export async function waitForOperation(url: string, agentId: string, operationId: string, headers: Record<string, string> = {}): Promise<OperationAnswer> {
  let last: unknown;
  for (let i = 0; i < 600; i += 1) {
    const response = await fetch(`${url}/api/agents/${agentId}/operations/${operationId}`, { headers });
    last = await response.json();
    const op = (last as { operation?: OperationAnswer }).operation;
    if (op && op.status !== 'queued' && op.status !== 'running') return op;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`operation ${operationId} did not end within 60 s: ${JSON.stringify(last)}`);
}
