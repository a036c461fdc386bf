/**
 * Query instances against real DuckDB: after opening, no file, network, extension or setting is
 * reachable, while the attached data stays readable. Statements are run directly on the instance
 * here (the engine itself refuses non-SELECT statements before they reach it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataBuilder } from './data-build.ts';
import { openQueryInstance } from './query-instance.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { dataSetOf, recordingLogger, temporaryDirectory, writeDataFiles } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let instance: DuckDBInstance;

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-instance-');
  const store = createMemoryObjectStore();
  const data = await dataSetOf(
    store,
    await writeDataFiles(directory.path, { 'numbers.csv': 'SELECT range AS n FROM range(10)' }),
  );
  const databaseFile = await createDataBuilder({
    objectStore: store,
    cacheDir: join(directory.path, 'cache'),
    logger: recordingLogger(),
  }).databaseFile(data);
  instance = await openQueryInstance(databaseFile, join(directory.path, 'spill'));
});

afterAll(async () => {
  instance.closeSync();
  await directory.remove();
});

async function run(sql: string): Promise<unknown> {
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJson();
  } finally {
    connection.closeSync();
  }
}

describe('query instance', () => {
  it('reads the attached data catalog', async () => {
    expect(await run('SELECT count(*)::INTEGER FROM data.numbers')).toEqual([[10]]);
  });

  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", /Permission Error: Cannot access file "\/etc\/passwd"/],
    ["SELECT * FROM read_text('/etc/hostname')", /Permission Error/],
    ["ATTACH '/tmp/cairn-never.duckdb' AS x", /Permission Error/],
    ["COPY (SELECT 1) TO '/tmp/cairn-never.csv'", /Permission Error/],
    ["COPY data.numbers TO '/tmp/cairn-never.parquet'", /Permission Error/],
    ['INSTALL httpfs', /Permission Error/],
    ['LOAD httpfs', /Permission Error|disabled/],
    ['SET enable_external_access = true', /configuration has been locked/],
    ["SET allowed_directories = ['/']", /configuration has been locked/],
    ['SET threads = 8', /configuration has been locked/],
    ["SET memory_limit = '8GiB'", /configuration has been locked/],
  ])('refuses %s', async (sql, message) => {
    await expect(run(sql)).rejects.toThrow(message);
    expect(
      existsSync('/tmp/cairn-never.csv') || existsSync('/tmp/cairn-never.parquet') ||
        existsSync('/tmp/cairn-never.duckdb'),
    ).toBe(false);
  });

  it('keeps the data catalog read-only', async () => {
    await expect(run('CREATE TABLE data.evil AS SELECT 1')).rejects.toThrow(/read-only/);
  });

  it('runs with threads 2 and memory_limit 512MiB', async () => {
    expect(await run("SELECT current_setting('threads')::INTEGER, current_setting('memory_limit')")).toEqual([[
      2,
      '512.0 MiB',
    ]]);
  });
});
