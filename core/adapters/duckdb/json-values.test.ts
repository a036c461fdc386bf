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
  engine = createDuckDbQueryEngine({ objectStore: store, cacheDir: directory.path, logger: recordingLogger(), queryProcess: testQueryProcess });
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
  ["{'a': 1, 'b': 'x', 'c': [9007199254740993::BIGINT]}", 'STRUCT(a INTEGER, b VARCHAR, c BIGINT[])', { a: 1, b: 'x', c: ['9007199254740993'] }],
  ["MAP {'k': 1, 'l': 2}", 'MAP(VARCHAR, INTEGER)', [{ key: 'k', value: 1 }, { key: 'l', value: 2 }]],
  ["'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID", 'UUID', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
  ["'\\x01\\xFFab'::BLOB", 'BLOB', Buffer.from([1, 255, 97, 98]).toString('base64')],
  ["'a'::ENUM('a', 'b')", "ENUM('a', 'b')", 'a'],
  ["'1010'::BIT", 'BIT', '1010'],
  ["union_value(k := 3)", 'UNION(k INTEGER)', 3],
];

describe('JSON values', () => {
  it('converts every type in one query', async () => {
    const sql = `SELECT ${cases.map(([expression], index) => `${expression} AS c${index}`).join(', ')}`;
    const result = await engine.execute({ data, scope: '_scope_values', views: [], sql, params: [], maxRows: 10, maxBytes: 1 << 20, timeoutMs: 30_000 });
    const types = result.columns.map((column) => column.type.replaceAll('"', ''));
    expect(types).toEqual(cases.map(([, type]) => type));
    expect(result.rows[0]).toEqual(cases.map(([, , value]) => value));
    expect(JSON.parse(JSON.stringify(result.rows))).toEqual(result.rows);
  });
});
