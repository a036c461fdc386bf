/**
 * Result values as JSON, through the engine against real DuckDB: one query selecting each type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSet, QueryEngine } from '../../ports/query-engine.ts';
import { createDuckDbQueryEngine } from './index.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { dataSetOf, recordingLogger, temporaryDirectory, testQueryProcess } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let engine: QueryEngine;
let data: DataSet;

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-values-');
  const store = createMemoryObjectStore();
  data = await dataSetOf(store, {});
  engine = createDuckDbQueryEngine({
    objectStore: store,
    cacheDir: directory.path,
    logger: recordingLogger(),
    queryProcess: testQueryProcess,
  });
});

afterAll(async () => {
  await engine.close();
  await directory.remove();
});

/** [SQL expression, expected column type, expected JSON value]. */
const cases: [string, string, unknown][] = [
  ['1.5::DECIMAL(10,2)', 'DECIMAL(10,2)', 1.5],
  ['12345678901234567.89::DECIMAL(38,2)', 'DECIMAL(38,2)', '12345678901234567.89'],
  ['-0.125::DECIMAL(18,3)', 'DECIMAL(18,3)', -0.125],
  ["DATE '2024-02-03'", 'DATE', '2024-02-03'],
  ["TIME '04:05:06.789'", 'TIME', '04:05:06.789'],
  ["TIMESTAMP '2024-02-03 04:05:06.123456'", 'TIMESTAMP', '2024-02-03T04:05:06.123456'],
  ["TIMESTAMPTZ '2024-02-03 04:05:06+02'", 'TIMESTAMP WITH TIME ZONE', '2024-02-03T02:05:06Z'],
  ["'2024-02-03 04:05:06'::TIMESTAMP_S", 'TIMESTAMP_S', '2024-02-03T04:05:06'],
  ["'2024-02-03 04:05:06.123'::TIMESTAMP_MS", 'TIMESTAMP_MS', '2024-02-03T04:05:06.123'],
  ["'2024-02-03 04:05:06.123456789'::TIMESTAMP_NS", 'TIMESTAMP_NS', '2024-02-03T04:05:06.123456789'],
  ["'infinity'::TIMESTAMP", 'TIMESTAMP', 'infinity'],
  ["INTERVAL '1 year 2 months 3 days 04:05:06'", 'INTERVAL', '1 year 2 months 3 days 04:05:06'],
  ['42::BIGINT', 'BIGINT', 42],
  ['9007199254740991::BIGINT', 'BIGINT', 9007199254740991],
  ['9007199254740993::BIGINT', 'BIGINT', '9007199254740993'],
  ['-9007199254740993::BIGINT', 'BIGINT', '-9007199254740993'],
  ['18446744073709551615::UBIGINT', 'UBIGINT', '18446744073709551615'],
  ['170141183460469231731687303715884105727::HUGEINT', 'HUGEINT', '170141183460469231731687303715884105727'],
  ['7::HUGEINT', 'HUGEINT', 7],
  ['-5::TINYINT', 'TINYINT', -5],
  ['300::UINTEGER', 'UINTEGER', 300],
  ['1.25::FLOAT', 'FLOAT', 1.25],
  ["'NaN'::DOUBLE", 'DOUBLE', 'NaN'],
  ["'inf'::DOUBLE", 'DOUBLE', 'Infinity'],
  ["'-inf'::FLOAT", 'FLOAT', '-Infinity'],
  ['true', 'BOOLEAN', true],
  ["'text'", 'VARCHAR', 'text'],
  ['NULL::INTEGER', 'INTEGER', null],
  ['[1, 2]', 'INTEGER[]', [1, 2]],
  ['[1, 2]::INTEGER[2]', 'INTEGER[2]', [1, 2]],
  ["[[DATE '2024-01-01'], []]", 'DATE[][]', [['2024-01-01'], []]],
  ["{'a': 1, 'b': 'x', 'c': [9007199254740993::BIGINT]}", 'STRUCT(a INTEGER, b VARCHAR, c BIGINT[])', {
    a: 1,
    b: 'x',
    c: ['9007199254740993'],
  }],
  ["MAP {'k': 1, 'l': 2}", 'MAP(VARCHAR, INTEGER)', [{ key: 'k', value: 1 }, { key: 'l', value: 2 }]],
  ["'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID", 'UUID', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
  ["'\\x01\\xFFab'::BLOB", 'BLOB', Buffer.from([1, 255, 97, 98]).toString('base64')],
  ["'a'::ENUM('a', 'b')", "ENUM('a', 'b')", 'a'],
  ["'1010'::BIT", 'BIT', '1010'],
  ['union_value(k := 3)', 'UNION(k INTEGER)', 3],
];

describe('JSON values', () => {
  it('converts every type in one query', async () => {
    const sql = `SELECT ${cases.map(([expression], index) => `${expression} AS c${index}`).join(', ')}`;
    const result = await engine.execute({
      data,
      scope: '_scope_values',
      views: [],
      sql,
      params: [],
      maxRows: 10,
      maxBytes: 1 << 20,
      timeoutMs: 30_000,
    });
    const types = result.columns.map((column) => column.type.replaceAll('"', ''));
    expect(types).toEqual(cases.map(([, type]) => type));
    expect(result.rows[0]).toEqual(cases.map(([, , value]) => value));
    expect(JSON.parse(JSON.stringify(result.rows))).toEqual(result.rows);
  });

  it("gives every TIMESTAMP the engine's own text with T, over several chunks and across eras", async () => {
    // 5,000 rows (three chunks): every 7,777,777.777777 s from 1900 (before the epoch) into 3085, the
    // epoch itself, whole seconds, the last microsecond of 9999, five-digit years and BC dates.
    const sql = `SELECT ts, CAST(ts AS VARCHAR) AS text FROM (
      SELECT TIMESTAMP '1900-01-01 00:00:00' + to_microseconds(i * 7777777777777) AS ts FROM range(5000) t(i)
      UNION ALL SELECT * FROM (VALUES (TIMESTAMP '1970-01-01 00:00:00'), (TIMESTAMP '1969-12-31 23:59:59.999999'),
        (TIMESTAMP '2001-01-01 00:01:00'), (TIMESTAMP '9999-12-31 23:59:59.999999'),
        (TIMESTAMP '12345-06-07 08:09:10.5'),
        (TIMESTAMP '0044-03-15 (BC) 12:00:00'), (NULL)) v(ts))`;
    const request = { data, scope: '_scope_values', views: [], sql, params: [], maxRows: 6000, maxBytes: 1 << 22 };
    const result = await engine.execute({ ...request, timeoutMs: 30_000 });
    expect(result.rows).toHaveLength(5007);
    const engineText = /^\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;
    const iso = (text: string | null) => (text && engineText.test(text) ? text.replace(' ', 'T') : text);
    const mismatches = result.rows.filter(([value, text]) => value !== iso(text as string | null));
    expect(mismatches).toEqual([]);
    expect(result.rows.slice(-7).map(([value]) => value)).toEqual([
      '1970-01-01T00:00:00',
      '1969-12-31T23:59:59.999999',
      '2001-01-01T00:01:00',
      '9999-12-31T23:59:59.999999',
      '12345-06-07T08:09:10.5',
      '0044-03-15 (BC) 12:00:00',
      null,
    ]);
  });
});
