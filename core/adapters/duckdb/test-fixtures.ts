/**
 * Test fixtures of the DuckDB adapter's tests: a recording Logger, the rejection of a promise, and
 * small data files written by DuckDB itself (COPY) into a temporary directory, and the command of a
 * real query process (bun on bins/semantic-mcp/main.ts). The in-memory ObjectStore is core/testing's fake.
 * Used only by *.test.ts files in this folder.
 *
 * Source: docs/architecture.md § Ports and adapters (fake only a port).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from '../../ports/logger.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import type { DataFile, DataSet } from '../../ports/query-engine.ts';
import type { QueryProcessCommand } from './query-process.ts';
import { quoteLiteral } from './sql-text.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');

/** Query processes as semantic-mcp starts them from sources: bun on its main.ts with the flag. */
export const testQueryProcess: QueryProcessCommand = {
  command: join(repoRoot, 'node_modules', '.bin', 'bun'),
  args: [join(repoRoot, 'bins', 'semantic-mcp', 'main.ts'), '--query-process'],
  env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
};

/** The error `promise` rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Error & { code: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code: string };
  }
  throw new Error('expected the call to fail');
}

/** One recorded log line. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A Logger that keeps every line in `lines` (children share it). */
export function recordingLogger(
  lines: LogLine[] = [],
  bound: Record<string, unknown> = {},
): Logger & { lines: LogLine[] } {
  const log = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields: { ...bound, ...fields }, message });
  };
  return {
    lines,
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (fields) => recordingLogger(lines, { ...bound, ...fields }),
  };
}

/** A temporary directory and a way to remove it. */
export async function temporaryDirectory(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Writes files with DuckDB: each entry maps a file name to the SELECT whose rows it holds; the
 * format follows the extension (parquet, csv, json = array, jsonl/ndjson = lines, duckdb = a database
 * with one table per `table=SELECT` pair separated by `;;`).
 */
export async function writeDataFiles(
  directory: string,
  files: Record<string, string>,
): Promise<Record<string, Uint8Array>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const bytes: Record<string, Uint8Array> = {};
  try {
    for (const [name, select] of Object.entries(files)) {
      const path = join(directory, name);
      await connection.run(copyStatement(name, select, path));
      if (name.endsWith('.duckdb')) await connection.run('DETACH target');
      bytes[name] = new Uint8Array(await readFile(path));
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return bytes;
}

function copyStatement(name: string, select: string, path: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  if (extension === 'duckdb') {
    const tables = select.split(';;').map((pair) => pair.split('='));
    const creates = tables.map(([table, query]) => `CREATE TABLE target.${table} AS ${query.trim()};`).join('\n');
    return `ATTACH ${quoteLiteral(path)} AS target;\n${creates}`;
  }
  const format: Record<string, string> = {
    parquet: '(FORMAT parquet)',
    csv: '(FORMAT csv, HEADER true)',
    tsv: "(FORMAT csv, HEADER true, DELIMITER '\t')",
    json: '(FORMAT json, ARRAY true)',
    jsonl: '(FORMAT json)',
    ndjson: '(FORMAT json)',
  };
  return `COPY (${select}) TO ${quoteLiteral(path)} ${format[extension] ?? '(FORMAT csv)'}`;
}

/** Puts `bytes` in `store` and returns the DataSet (key = SHA-256 over sorted name:digest lines). */
export async function dataSetOf(store: ObjectStore, bytes: Record<string, Uint8Array>): Promise<DataSet> {
  const files: DataFile[] = [];
  for (const [name, body] of Object.entries(bytes).sort(([a], [b]) => a.localeCompare(b))) {
    const sha256 = createHash('sha256').update(body).digest('hex');
    const objectKey = `blobs/${sha256}`;
    await store.put(objectKey, body);
    files.push({ name, objectKey, sha256, size: body.byteLength });
  }
  const key = createHash('sha256').update(files.map((f) => `${f.name}:${f.sha256}`).join('\n')).digest('hex');
  return { key, files };
}
