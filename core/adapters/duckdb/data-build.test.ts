/**
 * Building the data database against real DuckDB: every supported file type becomes a table named
 * after its stem, .duckdb files contribute their tables, and bad inputs fail with data_file_invalid.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSet } from '../../ports/query-engine.ts';
import { createDataBuilder } from './data-build.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { dataSetOf, failure, recordingLogger, temporaryDirectory, writeDataFiles } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
const store = createMemoryObjectStore();
let cacheCounter = 0;

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-build-');
});
afterAll(async () => {
  await directory.remove();
});

function builder(logger = recordingLogger()) {
  cacheCounter += 1;
  return createDataBuilder({ objectStore: store, cacheDir: join(directory.path, `cache-${cacheCounter}`), logger });
}

async function tablesOf(file: string): Promise<Record<string, number>> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const names =
      (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1"))
        .getRows() as [string][];
    const counts: Record<string, number> = {};
    for (const [name] of names) {
      counts[name] = Number((await connection.runAndReadAll(`SELECT count(*) FROM "${name}"`)).getRows()[0][0]);
    }
    return counts;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('data database', () => {
  it('loads parquet, csv, tsv, json, jsonl, ndjson and .duckdb files as tables named after their stems', async () => {
    const data = await dataSetOf(
      store,
      await writeDataFiles(directory.path, {
        'flights-3m.parquet': 'SELECT range AS n FROM range(30)',
        'airports.csv': "SELECT 'SFO' AS iata UNION ALL SELECT 'LAX'",
        'tabs.tsv': 'SELECT 1 AS a, 2 AS b',
        'array.json': 'SELECT range AS n FROM range(4)',
        'lines.jsonl': 'SELECT range AS n FROM range(5)',
        'more.ndjson': 'SELECT range AS n FROM range(6)',
        'warehouse.duckdb': 'orders=SELECT range AS id FROM range(7);;customers=SELECT 1 AS id',
      }),
    );
    const logger = recordingLogger();
    const file = await builder(logger).databaseFile(data);
    expect(file.endsWith(join(data.key, 'data.duckdb'))).toBe(true);
    expect(await tablesOf(file)).toEqual({
      'flights-3m': 30,
      airports: 2,
      tabs: 1,
      array: 4,
      lines: 5,
      more: 6,
      orders: 7,
      customers: 1,
    });
    expect(readdirSync(dirname(file))).toEqual(['data.duckdb']);
  });

  it('builds a key once, also under concurrent calls, and reuses the file afterwards', async () => {
    const data = await dataSetOf(store, await writeDataFiles(directory.path, { 'once.csv': 'SELECT 1 AS x' }));
    const logger = recordingLogger();
    const build = builder(logger);
    const [first, second] = await Promise.all([build.databaseFile(data), build.databaseFile(data)]);
    expect(second).toBe(first);
    expect(await build.databaseFile(data)).toBe(first);
    expect(logger.lines.filter((line) => line.message === 'data database built')).toHaveLength(1);
  });

  it('refuses two files defining the same table (case-insensitive), naming both', async () => {
    const data = await dataSetOf(
      store,
      await writeDataFiles(directory.path, { 'Twin.csv': 'SELECT 1 AS x', 'twin.parquet': 'SELECT 2 AS x' }),
    );
    const error = await failure(builder().databaseFile(data));
    expect(error.code).toBe('data_file_invalid');
    expect(error.message).toBe(
      'Data files "Twin.csv" and "twin.parquet" both define table "twin"; rename one of them so every table name ' +
        'is unique.',
    );
  });

  it('refuses a .duckdb table that clashes with a file stem', async () => {
    const data = await dataSetOf(
      store,
      await writeDataFiles(directory.path, { 'orders.csv': 'SELECT 1 AS x', 'shop.duckdb': 'orders=SELECT 1 AS id' }),
    );
    const error = await failure(builder().databaseFile(data));
    expect(error.message).toMatch(/^Data files "orders.csv" and "shop.duckdb" both define table "orders"/);
  });

  it('refuses a file that fails to load, naming it and the engine reason, and leaves no database behind', async () => {
    const data = await dataSetOf(store, { 'broken.parquet': new TextEncoder().encode('not a parquet file') });
    const cache = builder();
    const error = await failure(cache.databaseFile(data));
    expect(error.code).toBe('data_file_invalid');
    expect(error.message).toMatch(/^Data file "broken.parquet" is invalid: it could not be loaded: .*parquet/i);
    expect(existsSync(join(directory.path, `cache-${cacheCounter}`, data.key, 'data.duckdb'))).toBe(false);
  });

  it('refuses bytes whose SHA-256 does not match, missing bytes and unsupported types', async () => {
    const good = await dataSetOf(store, await writeDataFiles(directory.path, { 'ok.csv': 'SELECT 1 AS x' }));
    const tampered: DataSet = { key: 'tampered', files: [{ ...good.files[0], sha256: '0'.repeat(64) }] };
    expect(await failure(builder().databaseFile(tampered))).toMatchObject({
      code: 'data_file_invalid',
      message: expect.stringMatching(/"ok.csv" is invalid: its bytes do not match/),
    });
    const missing: DataSet = { key: 'missing', files: [{ ...good.files[0], objectKey: 'blobs/none' }] };
    expect(await failure(builder().databaseFile(missing))).toMatchObject({
      code: 'data_file_invalid',
      message: expect.stringMatching(/missing from the object store/),
    });
    const odd = await dataSetOf(store, { 'notes.txt': new TextEncoder().encode('x') });
    expect(await failure(builder().databaseFile(odd))).toMatchObject({
      code: 'data_file_invalid',
      message: expect.stringMatching(/"notes.txt" is invalid: its type is not supported/),
    });
  });

  it('uses a hash as the directory of a key that is not a safe file name', async () => {
    const good = await dataSetOf(store, await writeDataFiles(directory.path, { 'safe.csv': 'SELECT 1 AS x' }));
    const file = await builder().databaseFile({ key: '../escape', files: good.files });
    expect(file).toMatch(/[0-9a-f]{64}\/data\.duckdb$/);
  });
});
