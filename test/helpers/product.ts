/**
 * Starts the whole product (the all-in-one entrypoint: Caddy, api, semantic-mcp) on random loopback
 * ports with a temporary data directory, as `scripts/start` does, and stops it by PID.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './ports.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const bunPath = join(repoRoot, 'node_modules', '.bin', 'bun');
export const distDir = join(repoRoot, 'dist');

/** `sources`: bun on bins/<name>/main.ts. `compiled`: the executables scripts/build makes in dist/. */
export type ProductMode = 'sources' | 'compiled';
/** Options of {@link startProduct} and {@link runCairn}. */
export interface ProductOptions { mode?: ProductMode }

/** The mode of this test run: `compiled` when CAIRN_E2E_DIST=1, else `sources`. */
export function productMode(options: ProductOptions = {}): ProductMode {
  return options.mode ?? (process.env.CAIRN_E2E_DIST === '1' ? 'compiled' : 'sources');
}

/** Runs `scripts/build --if-stale` (a no-op when dist/ is newer than the sources; serialised by a lock). */
export function ensureDist(): void {
  const result = spawnSync(join(repoRoot, 'scripts/build'), ['--if-stale'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`scripts/build failed:\n${result.stdout}\n${result.stderr}`);
}

/** A running product. */
export interface RunningProduct {
  url: string;
  dataDir: string;
  /** Every output line so far (tagged by the entrypoint). */
  output: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the product; resolves once /api/health and /mcp/_health answer through the proxy.
 * `env` overrides the environment; a given CAIRN_DATA_DIR is used and kept, else a temporary one is made and removed.
 */
export async function startProduct(env: Record<string, string> = {}, options: ProductOptions = {}): Promise<RunningProduct> {
  const compiled = productMode(options) === 'compiled';
  if (compiled) ensureDist();
  const ownDataDir = env.CAIRN_DATA_DIR === undefined;
  const dataDir = env.CAIRN_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'cairn-e2e-'));
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const childEnv = {
    ...process.env, PORT: String(port), API_PORT: String(await freePort()), SEMANTIC_MCP_PORT: String(await freePort()),
    CAIRN_DATA_DIR: dataDir, CAIRN_PROXY_BIND: '127.0.0.1', CAIRN_EMBEDDED_QUEUE_PORT: String(await freePort()), ...env,
  };
  const [command, args] = compiled ? [join(distDir, 'entrypoint'), []] : [bunPath, [join(repoRoot, 'bins/entrypoint/main.ts')]];
  // Compiled: the Caddyfile and web/ come from CAIRN_APP_DIR (the repository here, /app in the image).
  const child = spawn(command, args, { env: compiled ? { CAIRN_APP_DIR: repoRoot, ...childEnv } : childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${url}/api/health`, output);
    await waitFor(`${url}/mcp/_health`, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dataDir, output, child, stop };
}

async function waitFor(url: string, output: string[]): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within 60 s. Output:\n${output.slice(-40).join('\n')}`);
}

/** Runs the `cairn` command (bun on the sources, or dist/cairn) against `url`; returns status, stdout and stderr. */
export function runCairn(url: string, args: string[], options: ProductOptions = {}): { status: number; stdout: string; stderr: string } {
  const result = productMode(options) === 'compiled'
    ? spawnSync(join(distDir, 'cairn'), ['--url', url, ...args], { encoding: 'utf8' })
    : spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', url, ...args], { encoding: 'utf8' });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * {@link runCairn} without blocking this process (a scripted model server in this process keeps answering while
 * the command runs).
 */
export function runCairnAsync(url: string, args: string[], options: ProductOptions & { stdin?: string } = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const [command, prefix] = productMode(options) === 'compiled'
    ? [join(distDir, 'cairn'), []]
    : [bunPath, [join(repoRoot, 'bins/cairn/main.ts')]];
  const child = spawn(command, [...prefix, '--url', url, ...args]);
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr })));
}

/** The pid of the API among the descendants of `root` (its command line names bins/api/main.ts or dist/api). */
export function apiPid(root: number): number {
  const found = descendants(root).find((row) => /(bins\/api\/main\.ts|dist\/api)(\s|$)/.test(row.args));
  if (!found) throw new Error('no api process found');
  return found.pid;
}

/**
 * Runs `cairn data-updates <args>` against the product's own stores (its data directory), as an operator would.
 */
export function runDataUpdates(product: RunningProduct, args: string[], options: ProductOptions = {}): { status: number; stdout: string; stderr: string } {
  // The embedded stores' addresses, as the entrypoint fills them (bins/entrypoint/settings.ts).
  const env = {
    ...process.env, DOCDB_URI: `sqlite:${join(product.dataDir, 'docdb.sqlite')}`,
    OBJSTORE_ENDPOINT: `file://${join(product.dataDir, 'objects')}`, OBJSTORE_BUCKET: 'cairn',
  };
  const result = productMode(options) === 'compiled'
    ? spawnSync(join(distDir, 'cairn'), ['data-updates', ...args], { encoding: 'utf8', env })
    : spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), 'data-updates', ...args], { encoding: 'utf8', env });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function descendants(root: number): { pid: number; ppid: number; args: string }[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).split('\n');
  const rows = lines.map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)).filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (tree.has(row.ppid) && !tree.has(row.pid)) { tree.add(row.pid); grew = true; }
  }
  return rows.filter((row) => tree.has(row.pid));
}

/** The pid of the dispatcher among the descendants of `root` (its command line names bins/dispatcher or dist/dispatcher). */
export function dispatcherPid(root: number): number {
  const found = descendants(root).find((row) => /dispatcher(\/main\.ts)?(\s|$)/.test(row.args) && !/worker/.test(row.args));
  if (!found) throw new Error('no dispatcher process found');
  return found.pid;
}
