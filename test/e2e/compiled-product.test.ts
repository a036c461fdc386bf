/**
 * End to end on the compiled executables (scripts/build → dist/): dist/entrypoint runs dist/api,
 * dist/dispatcher and dist/semantic-mcp behind Caddy, dist/cairn imports a project and makes a
 * token, and the MCP SDK client gets a real DuckDB answer through the front proxy. Also: the
 * embedded DuckDB library is written once per cache directory and reused. An e2e file has a compiled twin
 * (compiled-<file>) only where its path differs when compiled (a bundled library, an embedded asset, an executable
 * started by another), and each twin says which in a "Why compiled:" line; between them they run every executable.
 * Source: docs/architecture.md § Tests and measurements; ../shared/TOOLCHAIN.md § Bun single-file executables.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preloadDuckDbLibrary } from '../../core/adapters/duckdb/native-library.ts';
import { freePort } from '../helpers/ports.ts';
import { distDir, repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { flightsModel, mcpClient, projectDir, queryOutputOf } from '../helpers/semantic-fixtures.ts';

const compiled = { mode: 'compiled' } as const;
let product: RunningProduct;
let token: string;
let client: Client;

beforeAll(async () => {
  product = await startProduct({}, compiled);
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish'], compiled);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], compiled);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  client = await mcpClient(`${product.url}/mcp/flights/mcp`, token);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await product?.stop();
});

describe('compiled executables', () => {
  it('runs every process from dist/: one executable per bins/<name>/main.ts', () => {
    const bins = readdirSync(join(repoRoot, 'bins')).filter((name) => existsSync(join(repoRoot, 'bins', name, 'main.ts')));
    for (const name of bins) expect(statSync(join(distDir, name)).mode & 0o111, `dist/${name}`).not.toBe(0);
    expect(product.output.some((line) => line.startsWith('[semantic-mcp] ') && line.includes('DuckDB library loaded'))).toBe(true);
    expect(product.output.filter((line) => /could not start/.test(line))).toEqual([]);
  });

  it('dist/cairn prints a raw token', () => {
    expect(token).toMatch(/^cairn_mcp_[A-Za-z0-9_-]{43}$/);
  });

  it('answers execute_query through the front proxy with DuckDB inside dist/semantic-mcp', async () => {
    const result = await client.callTool({
      name: 'execute_query',
      arguments: { modelName: 'flights', sql: 'SELECT o.state, COUNT(*) AS n FROM flights f JOIN origin_airports o ON f.origin = o.iata WHERE f.delay > 0 GROUP BY o.state ORDER BY n DESC LIMIT 1' },
    });
    expect(result.isError).toBeFalsy();
    expect(queryOutputOf(result).rows).toEqual([['CA', 177731]]);
  });

  it('writes the embedded DuckDB library once under the data directory and reuses it on the next start', async () => {
    const cacheDir = join(product.dataDir, 'cache', 'native');
    const libraries = readdirSync(cacheDir).filter((name) => /^libduckdb-[a-z0-9]+\.so$/.test(name));
    expect(libraries).toHaveLength(1);
    expect(statSync(join(cacheDir, libraries[0])).mode & 0o777).toBe(0o500);
    const line = await startSemanticMcpOnce(cacheDir);
    expect(line).toMatchObject({ msg: 'DuckDB library loaded', written: false, path: join(cacheDir, libraries[0]) });
  }, 30_000);
});

describe('native library preload outside a compiled executable', () => {
  it('is a no-op under Node (and under Bun running sources)', async () => {
    expect(await preloadDuckDbLibrary()).toMatchObject({ loaded: false });
  });
});

describe('compiled twins of the e2e files', () => {
  const dir = join(repoRoot, 'test/e2e');
  const twins = readdirSync(dir).filter((f) => /^compiled-.+\.test\.ts$/.test(f) && f !== 'compiled-product.test.ts');
  const executables = readdirSync(join(repoRoot, 'bins')).filter((name) => existsSync(join(repoRoot, 'bins', name, 'main.ts')));

  it('each runs an e2e file of the sources and says why that path differs when compiled (Why compiled: dist/…)', () => {
    const problems = twins.flatMap((twin) => {
      const text = readFileSync(join(dir, twin), 'utf8');
      const why = /^ \* Why compiled: ([\s\S]*?)\n \*\//m.exec(text)?.[1] ?? '';
      return [
        ...(existsSync(join(dir, twin.replace(/^compiled-/, ''))) ? [] : [`${twin}: no source file of that name`]),
        ...(/dist\/[a-z-]+/.test(why) ? [] : [`${twin}: no "Why compiled:" line naming the dist/ executable it covers`]),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('run every executable between them (this file runs them all; a twin covers a path of one)', () => {
    const named = new Set(twins.flatMap((twin) => [...readFileSync(join(dir, twin), 'utf8').matchAll(/dist\/([a-z-]+)/g)].map((m) => m[1])));
    expect(executables.filter((name) => !named.has(name)).map((name) => `dist/${name} is in no twin`)).toEqual([]);
  });
});

/** Starts dist/semantic-mcp alone on a scratch store; resolves with its "DuckDB library loaded" log line. */
async function startSemanticMcpOnce(cacheDir: string): Promise<Record<string, unknown>> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-compiled-'));
  const env = {
    PATH: process.env.PATH, CAIRN_NATIVE_CACHE_DIR: cacheDir, DOCDB_URI: `sqlite:${scratch}/docdb.sqlite`, OBJSTORE_ENDPOINT: `file://${scratch}/objects`,
    OBJSTORE_BUCKET: 'cairn', SEMANTIC_MCP_HOST: '127.0.0.1', SEMANTIC_MCP_PORT: String(await freePort()), SEMANTIC_CACHE_DIR: join(scratch, 'cache'),
  };
  const child = spawn(join(distDir, 'semantic-mcp'), [], { env, cwd: scratch, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    return await new Promise((resolve, reject) => {
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const line = buffered.split('\n').find((l) => l.includes('DuckDB library loaded'));
        if (line) resolve(JSON.parse(line));
      });
      child.once('exit', (code) => reject(new Error(`dist/semantic-mcp exited (${code}) before loading DuckDB:\n${buffered}`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}
