/**
 * The scope builder against real DuckDB: a scope file holds only the rows and columns of its
 * view_queries, ENUM columns (also nested) become text, the file appears atomically and once, a
 * failing view_query is refused without the engine's text (which quotes hidden rows), a second
 * statement cannot be smuggled in, and a newer scope of a family retires the older file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import type { DataSet } from '../../ports/query-engine.ts';
import { createDataBuilder } from './data-build.ts';
import { createScopeBuilder } from './scope-build.ts';
import { dataSetOf, failure, recordingLogger, temporaryDirectory, writeDataFiles } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let cacheDir: string;
let data: DataSet;
let dataFile: string;
const store = createMemoryObjectStore();
// writeDataFiles splits `table=SELECT` at '=', so the SELECTs here use IN instead.
const region = "CAST(CASE WHEN range IN (7) THEN 'SECRET_ZONE' WHEN range % 2 IN (0) THEN 'EU' ELSE 'US' END " +
  "AS ENUM('EU', 'US', 'SECRET_ZONE'))";

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-scope-');
  cacheDir = join(directory.path, 'cache');
  const events = `SELECT range AS id, ${region} AS region, 'user' || range || '@x.example' AS email, ` +
    "CASE WHEN range IN (7) THEN 'secret-value-7' ELSE range::VARCHAR END AS code FROM range(100)";
  data = await dataSetOf(store, await writeDataFiles(directory.path, { 'source.duckdb': `events=${events}` }));
  const dataBuilder = createDataBuilder({ objectStore: store, cacheDir, logger: recordingLogger() });
  dataFile = await dataBuilder.databaseFile(data);
});

afterAll(async () => {
  await directory.remove();
});

async function read(file: string, sql: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRows() as unknown[][];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const euView = {
  name: 'events',
  sql: "SELECT id, region, [region] AS regions, {'r': region} AS st, MAP {region: 1} AS m, email " +
    "FROM data.events WHERE region = 'EU';",
};

describe('scope files', () => {
  it('hold only the view rows, every ENUM (also nested) as text, built once for concurrent calls', async () => {
    const logger = recordingLogger();
    const builder = createScopeBuilder({ cacheDir, logger });
    const request = { dataKey: data.key, dataFile, scope: '_scope_eu_000000000001', views: [euView] };
    const leases = await Promise.all([1, 2, 3].map(() => builder.scopeFile(request)));
    await Promise.all(leases.map((lease) => lease.release()));
    const file = leases[0].path;
    expect(leases.map((lease) => lease.path)).toEqual([file, file, file]);
    expect(file).toBe(join(cacheDir, data.key, 'scopes', '_scope_eu_000000000001.duckdb'));
    expect(logger.lines.filter((line) => line.message === 'scope file built')).toHaveLength(1);
    expect(readdirSync(dirname(file))).toEqual(['_scope_eu_000000000001.duckdb']);
    expect(await read(file, "SELECT count(*), count(*) FILTER (region <> 'EU') FROM events")).toEqual([[50n, 0n]]);
    const columns = 'SELECT column_name, data_type FROM duckdb_columns() ' +
      "WHERE table_name = 'events' ORDER BY column_index";
    expect((await read(dataFile, columns))[1]).toEqual(['region', "ENUM('EU', 'US', 'SECRET_ZONE')"]);
    const types = await read(file, columns);
    expect(types).toEqual([
      ['id', 'BIGINT'],
      ['region', 'VARCHAR'],
      ['regions', 'VARCHAR[]'],
      ['st', 'STRUCT(r VARCHAR)'],
      ['m', 'MAP(VARCHAR, INTEGER)'],
      ['email', 'VARCHAR'],
    ]);
    const catalog = await read(file, 'SELECT * FROM duckdb_types() UNION ALL BY NAME SELECT * FROM duckdb_columns()');
    const everything = JSON.stringify(catalog, (_, value: unknown) => (typeof value === 'bigint' ? `${value}` : value));
    expect(everything).not.toMatch(/SECRET_ZONE|secret-value/);
  });

  it('refuses a failing view_query with the dataset and error class only, logs the engine text, no file', async () => {
    const logger = recordingLogger();
    const builder = createScopeBuilder({ cacheDir, logger });
    const views = [
      { name: 'events', sql: "SELECT id FROM data.events WHERE region = 'EU'" },
      { name: 'codes', sql: 'SELECT CAST(code AS INTEGER) AS code FROM data.events' },
    ];
    const request = { dataKey: data.key, dataFile, scope: '_scope_cast_000000000001', views };
    const error = await failure(builder.scopeFile(request));
    expect(error.code).toBe('view_materialisation_failed');
    expect(error.message).toBe(
      'Dataset "codes" could not be materialised from its view_query (Conversion Error; the engine\'s full message ' +
        "is in the service log). The model's view_query needs a fix by its modeller (request_improvement can say so).",
    );
    const logged = logger.lines.find((line) => line.message === 'view_query could not be materialised');
    expect(logged?.fields).toMatchObject({ dataset: 'codes', error: expect.stringMatching(/secret-value-7/) });
    expect(readdirSync(join(cacheDir, data.key, 'scopes')).filter((name) => name.includes('cast'))).toEqual([]);
  });

  it.each([
    'SELECT id FROM data.events; CREATE TABLE planted AS SELECT 1 AS x',
    'SELECT id FROM data.events) AS s(id); CREATE TABLE planted AS SELECT 1 AS x; SELECT 1 FROM (SELECT 1',
    "SELECT * FROM read_csv('/etc/passwd')",
  ])('runs a view_query as one statement without file access: refuses %j', async (sql) => {
    const builder = createScopeBuilder({ cacheDir, logger: recordingLogger() });
    const scope = `_scope_smuggle_${String(sql.length).padStart(12, '0')}`;
    const views = [{ name: 'events', sql }];
    const error = await failure(builder.scopeFile({ dataKey: data.key, dataFile, scope, views }));
    expect(error.code).toBe('view_materialisation_failed');
    expect(existsSync(join(cacheDir, data.key, 'scopes', `${scope}.duckdb`))).toBe(false);
  });

  it('interrupts a build past its time limit and says so', async () => {
    const builder = createScopeBuilder({ cacheDir, logger: recordingLogger(), buildTimeoutMs: 50 });
    const views = [{ name: 'slow', sql: 'SELECT sum(a.range * b.range) AS s FROM range(100000) a, range(100000) b' }];
    const scope = '_scope_slow_000000000001';
    const error = await failure(builder.scopeFile({ dataKey: data.key, dataFile, scope, views }));
    expect(error.code).toBe('view_materialisation_failed');
    expect(error.message).toMatch(/^Dataset "slow" could not be materialised from its view_query within 0\.05 s, /);
  });

  it('retires the older file of a family once a newer scope is built, after its last lease', async () => {
    const builder = createScopeBuilder({ cacheDir, logger: recordingLogger() });
    const view = (limit: number) => [{ name: 'events', sql: `SELECT id FROM data.events WHERE id < ${limit}` }];
    const scopeFile = (scope: string, limit: number) =>
      builder.scopeFile({ dataKey: data.key, dataFile, scope, views: view(limit) });
    const old = await scopeFile('_scope_family_00000000000a', 3);
    const other = await scopeFile('_scope_other_00000000000a', 4);
    await other.release();
    const current = await scopeFile('_scope_family_00000000000b', 5);
    await current.release();
    expect(existsSync(old.path)).toBe(true);
    await old.release();
    expect([existsSync(old.path), existsSync(other.path), existsSync(current.path)]).toEqual([false, true, true]);
    expect(await read(current.path, 'SELECT count(*) FROM events')).toEqual([[5n]]);
  });
});
