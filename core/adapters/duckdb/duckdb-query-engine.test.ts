/**
 * The DuckDB QueryEngine against real DuckDB in real query processes: materialisation by scope
 * digest, failing view_query, scoping through search_path, the row cap, the timeout, parameter
 * binding, SELECT-only execution, external access, eviction when the process pool is full.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DataSet, ExecuteRequest, QueryEngine } from '../../ports/query-engine.ts';
import { createDuckDbQueryEngine } from './index.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import {
  dataSetOf,
  failure,
  recordingLogger,
  temporaryDirectory,
  testQueryProcess,
  writeDataFiles,
} from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let engine: QueryEngine;
let data: DataSet;
const store = createMemoryObjectStore();
const logger = recordingLogger();

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-engine-');
  const bytes = await writeDataFiles(directory.path, {
    'flights.parquet':
      "SELECT range AS n, 'o' || (range % 7) AS origin, DATE '2024-01-01' + (range % 30)::INTEGER AS day FROM " +
      'range(2000)',
  });
  data = await dataSetOf(store, bytes);
  engine = createDuckDbQueryEngine({
    objectStore: store,
    cacheDir: `${directory.path}/cache`,
    logger,
    queryProcess: testQueryProcess,
  });
});

afterAll(async () => {
  await engine.close();
  await directory.remove();
});

const flightsView = { name: 'flights', sql: 'SELECT * FROM data.flights' };

function request(overrides: Partial<ExecuteRequest>): ExecuteRequest {
  return {
    data,
    scope: '_scope_test',
    views: [flightsView],
    sql: 'SELECT 1',
    params: [],
    maxRows: 1000,
    maxBytes: 4 * 1024 * 1024,
    timeoutMs: 30_000,
    ...overrides,
  };
}

describe('execute', () => {
  it('builds the data once and queries a scoped view by its bare name', async () => {
    const result = await engine.execute(request({ sql: 'SELECT count(*) AS c, max(n) AS top FROM flights' }));
    const timing = { prepare: expect.any(Number), run: expect.any(Number), convert: expect.any(Number) };
    const columns = [{ name: 'c', type: 'BIGINT' }, { name: 'top', type: 'BIGINT' }];
    expect(result).toEqual({ columns, rows: [[2000, 1999]], truncated: false, timing });
    await engine.execute(request({ sql: 'SELECT 1 FROM flights LIMIT 1' }));
    expect(logger.lines.filter((line) => line.message === 'data database built')).toHaveLength(1);
  });

  it(
    'a changed view_query takes effect on the next call: a new digest is a new scope, and the old scope of the ' +
      'model is dropped',
    async () => {
      const first = await engine.execute(
        request({
          scope: '_scope_changes_00000000000a',
          views: [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 10' }],
          sql: 'SELECT count(*) FROM flights',
        }),
      );
      const second = await engine.execute(
        request({
          scope: '_scope_changes_00000000000b',
          views: [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 25' }],
          sql: 'SELECT count(*) FROM flights',
        }),
      );
      expect([first.rows, second.rows]).toEqual([[[10]], [[25]]]);
      const old = await failure(
        engine.execute(
          request({
            scope: '_scope_changes_00000000000b',
            sql: 'SELECT count(*) FROM "_scope_changes_00000000000a".flights',
          }),
        ),
      );
      expect(old.message).toMatch(/_scope_changes_00000000000a/);
    },
  );

  it('prepareScope builds the scope file ahead, starting no query process; the next query builds nothing', async () => {
    const scope = '_scope_ahead_0123456789ab';
    const views = [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 5' }];
    const built = () =>
      logger.lines
        .filter((line) => line.message === 'scope file built' && line.fields.scope === scope);
    const started = () => logger.lines.filter((line) => line.message === 'query process started').length;
    const processesBefore = started();
    engine.prepareScope?.({ data, scope, views });
    await vi.waitFor(() => expect(built()).toHaveLength(1), { timeout: 60_000, interval: 50 });
    expect(started()).toBe(processesBefore);
    const result = await engine.execute(request({ scope, views, sql: 'SELECT count(*) FROM flights' }));
    expect(result.rows).toEqual([[5]]);
    expect(built()).toHaveLength(1);
  });

  it('does not re-materialise a scope whose digest it has already materialised', async () => {
    const scope = '_scope_skip_0123456789ab';
    await engine.execute(
      request({ scope, views: [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 3' }], sql: 'SELECT 1' }),
    );
    // Same name, other views (a caller that broke the digest promise): the views already there stay.
    const again = await engine.execute(
      request({
        scope,
        views: [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 7' }],
        sql: 'SELECT count(*) FROM flights',
      }),
    );
    expect(again.rows).toEqual([[3]]);
  });

  it('drops views that left the model', async () => {
    await engine.execute(
      request({
        scope: '_scope_dropped_000000000001',
        views: [flightsView, { name: 'extra', sql: 'SELECT 1 AS x' }],
        sql: 'SELECT * FROM extra',
      }),
    );
    const error = await failure(
      engine.execute(
        request({ scope: '_scope_dropped_000000000002', views: [flightsView], sql: 'SELECT * FROM extra' }),
      ),
    );
    expect(error).toMatchObject({ code: 'query_failed' });
  });

  it('refuses the query when a view_query fails, naming the dataset, and keeps no half-built view set', async () => {
    const scope = '_scope_broken_00000000000a';
    await engine.execute(request({ scope, sql: 'SELECT count(*) FROM flights' }));
    const views = [{ name: 'flights', sql: 'SELECT * FROM data.flights WHERE n < 5' }, {
      name: 'broken',
      sql: 'SELECT * FROM data.nope',
    }];
    const error = await failure(
      engine.execute(request({ scope: '_scope_broken_00000000000b', views, sql: 'SELECT 42' })),
    );
    expect(error.code).toBe('view_materialisation_failed');
    expect(error.message).toMatch(/^Dataset "broken" could not be materialised from its view_query \(Catalog Error; /);
    expect(error.message).not.toMatch(/nope/);
    const logged = logger.lines
      .find((line) => line.message === 'view_query could not be materialised' && line.fields.dataset === 'broken');
    expect(logged?.fields.error).toMatch(/^Catalog Error: Table with name nope does not exist/);
    const after = await engine.execute(request({ scope, sql: 'SELECT count(*) FROM flights' }));
    expect(after.rows).toEqual([[2000]]);
    const half = await failure(
      engine.execute(request({ scope, sql: 'SELECT count(*) FROM "_scope_broken_00000000000b".flights' })),
    );
    expect(half.code).toBe('query_failed');
  });

  it('resolves bare names only in the requested scope (search_path)', async () => {
    await engine.execute(
      request({
        scope: '_scope_one',
        views: [{ name: 'only_one', sql: 'SELECT 1 AS x' }],
        sql: 'SELECT * FROM only_one',
      }),
    );
    const error = await failure(
      engine.execute(request({ scope: '_scope_two', views: [flightsView], sql: 'SELECT * FROM only_one' })),
    );
    expect(error.code).toBe('query_failed');
    expect(error.message).toMatch(/only_one does not exist/);
  });

  it("binds bare names straight to the scope file's tables: no view in between, no scope schema to see", async () => {
    const sql = 'SELECT current_database() AS db, current_schema() AS s, count(*) AS c FROM flights';
    const result = await engine.execute(request({ scope: '_scope_direct_0123456789ab', sql }));
    expect(result.rows).toEqual([['data', 'main', 2000]]);
  });

  it.each([
    [1000, false, 1000],
    [1001, true, 1000],
    [5, false, 5],
  ])('caps %i rows: truncated %s, %i rows kept', async (total, truncated, kept) => {
    const result = await engine.execute(request({ sql: `SELECT n FROM flights WHERE n < ${total} ORDER BY n` }));
    expect(result.truncated).toBe(truncated);
    expect(result.rows).toHaveLength(kept);
    expect(result.rows.at(-1)).toEqual([kept - 1]);
  });

  it('streams a huge result and stops after maxRows + 1 rows', async () => {
    const result = await engine.execute(
      request({ sql: 'SELECT a.n FROM flights a, flights b, flights c', maxRows: 3 }),
    );
    expect(result).toMatchObject({
      truncated: true,
      rows: [[expect.any(Number)], [expect.any(Number)], [expect.any(Number)]],
    });
  });

  it('interrupts a slow query after timeoutMs with query_timeout, and the engine keeps working', async () => {
    const slow = 'SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range * b.range = -1';
    const error = await failure(engine.execute(request({ sql: slow, timeoutMs: 150 })));
    expect(error.code).toBe('query_timeout');
    expect(error.message).toMatch(/^Query timed out after 0\.15 s and was stopped; narrow the query/);
    expect((await engine.execute(request({ sql: 'SELECT 7' }))).rows).toEqual([[7]]);
  });

  it('reports runtime errors as query_failed with the engine message', async () => {
    const error = await failure(engine.execute(request({ sql: "SELECT CAST('x' AS INTEGER)" })));
    expect(error.code).toBe('query_failed');
    expect(error.message).toMatch(/Could not convert string 'x' to INT32/);
  });

  it('runs concurrent calls on one scope and on several scopes of one data key', async () => {
    const calls = Array.from({ length: 8 }, (_, index) => {
      const views = [{ name: 'flights', sql: `SELECT * FROM data.flights WHERE n < ${(index % 3) + 1}` }];
      return engine.execute(
        request({ scope: `_scope_parallel_00000000000${index % 3}`, views, sql: 'SELECT count(*) FROM flights' }),
      );
    });
    const results = await Promise.all(calls);
    expect(results.map((result) => result.rows[0][0])).toEqual([1, 2, 3, 1, 2, 3, 1, 2]);
  });

  it('runs DESCRIBE (the engine reports a SELECT)', async () => {
    const described = await engine.execute(request({ sql: 'DESCRIBE flights' }));
    expect(described.rows.map((row) => row[0])).toEqual(['n', 'origin', 'day']);
  });

  it.each([
    ['EXPLAIN SELECT * FROM flights', /^Query rejected: EXPLAIN is not available/],
    ['EXPLAIN ANALYZE SELECT * FROM flights', /^Query rejected: EXPLAIN is not available/],
    [
      "CREATE MACRO upper(x) AS 'PWNED'",
      /^Query rejected: only one read-only SELECT statement can run \(the engine reports a CREATE statement\)/,
    ],
    ['CREATE TABLE memory.main.t AS SELECT 1', /^Query rejected: only one read-only SELECT/],
    ["SET search_path = 'data.main'", /^Query rejected: only one read-only SELECT/],
    ['CALL pragma_version()', /^Query rejected: only one read-only SELECT/],
  ])('runs only SELECT statements, whatever reached it: refuses %s', async (sql, message) => {
    const error = await failure(engine.execute(request({ sql })));
    expect(error.code).toBe('query_rejected');
    expect(error.message).toMatch(message);
    expect((await engine.execute(request({ sql: "SELECT upper('a')" }))).rows).toEqual([['A']]);
  });
});

describe('parameters', () => {
  it('binds with the inferred type (numeric comparison, not text)', async () => {
    const result = await engine.execute(request({ sql: 'SELECT count(*) FROM flights WHERE n > $1', params: ['5'] }));
    expect(result.rows).toEqual([[1994]]);
  });

  it('binds DATE, VARCHAR and BOOLEAN placeholders', async () => {
    const sql = 'SELECT count(*) FROM flights WHERE day >= $1 AND origin = $2 AND (n % 2 = 0) = $3';
    const result = await engine.execute(request({ sql, params: ['2024-01-30', 'o3', 'true'] }));
    const expected = await engine.execute(
      request({ sql: "SELECT count(*) FROM flights WHERE day >= DATE '2024-01-30' AND origin = 'o3' AND n % 2 = 0" }),
    );
    expect(result.rows).toEqual(expected.rows);
  });

  it('binds an untyped placeholder as VARCHAR', async () => {
    expect((await engine.execute(request({ sql: 'SELECT $1 AS v', params: ['hello'] }))).rows).toEqual([['hello']]);
  });

  it('refuses a param that does not convert, naming $n and the type', async () => {
    const error = await failure(
      engine.execute(request({ sql: 'SELECT count(*) FROM flights WHERE n > $1', params: ['abc'] })),
    );
    expect(error.code).toBe('query_invalid_params');
    expect(error.message).toMatch(/^Parameter \$1 must be an integer \(BIGINT\).*"abc" does not convert to BIGINT/);
    const date = await failure(
      engine.execute(request({ sql: 'SELECT count(*) FROM flights WHERE day = $1', params: ['31/01/2024'] })),
    );
    expect(date.message).toMatch(/^Parameter \$1 must be a DATE/);
  });

  it('refuses fewer params than placeholders', async () => {
    const error = await failure(engine.execute(request({ sql: 'SELECT $1::INTEGER + $2::INTEGER', params: ['1'] })));
    expect(error).toMatchObject({ code: 'query_invalid_params' });
  });
});

describe('external access', () => {
  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", 'query_failed', /Permission Error/],
    ["SELECT * FROM '/etc/passwd'", 'query_failed', /does not exist|Permission Error/],
    ["COPY (SELECT 1) TO '/tmp/cairn-should-not-exist.csv'", 'query_failed', /Permission Error/],
    ["ATTACH '/tmp/cairn-should-not-exist.duckdb' AS x", 'query_rejected', /only one read-only SELECT/],
    ['INSTALL httpfs', 'query_rejected', /only one read-only SELECT/],
  ])('refuses %s', async (sql, code, message) => {
    const error = await failure(engine.execute(request({ sql })));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('refuses a view_query that reads a file', async () => {
    const views = [{ name: 'leak', sql: "SELECT * FROM read_csv('/etc/passwd')" }];
    const error = await failure(engine.execute(request({ scope: '_scope_leak_000000000000', views, sql: 'SELECT 1' })));
    expect(error.code).toBe('view_materialisation_failed');
    expect(error.message).toMatch(/Permission Error/);
  });
});

describe('query processes', () => {
  it('keeps at most maxProcesses and closes the least recently used idle one for another data key', async () => {
    const lines = recordingLogger();
    const small = createDuckDbQueryEngine({
      objectStore: store,
      cacheDir: `${directory.path}/lru`,
      logger: lines,
      queryProcess: testQueryProcess,
      maxProcesses: 1,
    });
    try {
      const other = await dataSetOf(store, await writeDataFiles(directory.path, { 'other.csv': 'SELECT 1 AS x' }));
      await small.execute(request({ sql: 'SELECT count(*) FROM flights' }));
      await small.execute(
        request({
          data: other,
          views: [{ name: 'other', sql: 'SELECT * FROM data.other' }],
          sql: 'SELECT * FROM other',
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closed = lines.lines.filter((line) => line.message === 'query process killed').map((
        line,
      ) => [line.fields.dataKey, line.fields.reason]);
      expect(closed).toEqual([[JSON.stringify([data.key, '_scope_test']), 'room needed for another data key']]);
      expect((await small.execute(request({ sql: 'SELECT count(*) FROM flights' }))).rows).toEqual([[2000]]);
    } finally {
      await small.close();
    }
  });

  it('parses with json_serialize_sql and returns parser errors verbatim', async () => {
    const parsed = await engine.parse('SELECT 1');
    expect(parsed.ok && parsed.statements).toHaveLength(1);
    await expect(engine.parse('SELEC 1')).resolves.toEqual({ ok: false, message: 'syntax error at or near "SELEC"' });
  });
});
