/**
 * Param conversions on a query process's connection: the engine's TRY_CAST, prepared once per type and
 * then only executed (docs/decisions.md D18: per-call waste), bounded, freed when the scope changes, and still the
 * same refusals.
 */
import {
  BIGINT,
  DATE,
  DECIMAL,
  DuckDBInstance,
  HUGEINT,
  INTEGER,
  SMALLINT,
  TINYINT,
  UBIGINT,
  UHUGEINT,
  UINTEGER,
  USMALLINT,
  UTINYINT,
  VARCHAR,
} from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CastStatements } from './bind-parameters.ts';
import { openQuerySession, type QuerySession, runQuery } from './run-query.ts';

let instance: DuckDBInstance;
let session: QuerySession;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const setup = await instance.connect();
  await setup.run('CREATE SCHEMA a; CREATE VIEW a.t AS SELECT range AS n, range / 2 AS h FROM range(10)');
  await setup.run('CREATE SCHEMA b; CREATE VIEW b.t AS SELECT 1 AS n');
  setup.closeSync();
  session = await openQuerySession(instance);
});
afterAll(() => {
  session.connection.closeSync();
  instance.closeSync();
});

const run = (scope: string, sql: string, params: string[]) => (
  runQuery(session, { scope, sql, params, maxRows: 100, maxBytes: 1 << 20 }).result
);

describe('CastStatements', () => {
  it("converts with the engine's TRY_CAST and keeps one prepared statement per type", async () => {
    const connection = await instance.connect();
    const casts = new CastStatements(connection);
    expect(await casts.convert(BIGINT, '15')).toBe(15n);
    expect(await casts.convert(BIGINT, ' 42 ')).toBe(42n);
    expect(await casts.convert(BIGINT, 'abc')).toBeNull();
    expect(String(await casts.convert(DATE, '2024-01-31'))).toBe('2024-01-31');
    expect(casts.size).toBe(2);
    casts.clear();
    expect(casts.size).toBe(0);
    expect(await casts.convert(INTEGER, '7')).toBe(7);
    connection.closeSync();
  });

  it('keeps at most 32, freeing the least recently used, and converts an evicted type again', async () => {
    const connection = await instance.connect();
    const casts = new CastStatements(connection);
    for (let scale = 1; scale <= 36; scale += 1) {
      expect(String(await casts.convert(DECIMAL(38, scale), '1.5'))).toMatch(/^1\.50*$/);
    }
    expect(casts.size).toBe(32);
    expect(String(await casts.convert(DECIMAL(38, 1), '2.5'))).toBe('2.5');
    expect(casts.size).toBe(32);
    connection.closeSync();
  });
});

describe('integer params', () => {
  it("converts plain integers exactly as the engine's TRY_CAST does, for every integer type", async () => {
    const connection = await instance.connect();
    const casts = new CastStatements(connection);
    const types = [TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, UBIGINT, UHUGEINT];
    const texts = [
      '15',
      '-15',
      '015',
      '-0',
      '0',
      '127',
      '128',
      '-128',
      '-129',
      '255',
      '256',
      '65535',
      '2147483647',
      '2147483648',
      '-2147483649',
      '4294967295',
      '4294967296',
      '999999999999999999',
      '-999999999999999999',
      '9223372036854775808',
      ' 15',
      '+15',
      '1e3',
      '15.0',
      '15.5',
      '',
      '-',
      'abc',
      '١٢',
      '0x10',
      '1_000',
    ];
    for (const type of types) {
      for (const text of texts) {
        const sql = `SELECT TRY_CAST($1::VARCHAR AS ${type.toString()})`;
        const reader = await connection.runAndReadAll(sql, [text], [VARCHAR]);
        expect(await casts.convert(type, text), `${text} as ${type.toString()}`).toStrictEqual(reader.getRows()[0][0]);
      }
    }
    connection.closeSync();
  });
});

describe('params of query after query on one session', () => {
  it("binds each query's own values through the reused conversion; refuses one that does not convert", async () => {
    expect((await run('a', 'SELECT count(*) AS c FROM t WHERE n > $1', ['6'])).rows).toEqual([[3]]);
    expect((await run('a', 'SELECT count(*) AS c FROM t WHERE n > $1', ['2'])).rows).toEqual([[7]]);
    expect(session.casts.size).toBe(0); // plain integers need no engine conversion
    expect((await run('a', 'SELECT count(*) AS c FROM t WHERE h > $1', ['2.5'])).rows).toEqual([[4]]);
    expect((await run('a', 'SELECT count(*) AS c FROM t WHERE h > $1', ['1'])).rows).toEqual([[7]]);
    expect(session.casts.size).toBe(1);
    await expect(run('a', 'SELECT count(*) AS c FROM t WHERE n > $1', ['two'])).rejects.toMatchObject({
      code: 'query_invalid_params',
      message: 'Parameter $1 must be an integer (BIGINT), e.g. "42"; "two" does not convert to BIGINT.',
    });
    expect((await run('a', 'SELECT count(*) AS c FROM t WHERE n > $1', ['8'])).rows).toEqual([[1]]);
  });

  it('frees the conversions when the scope changes', async () => {
    await run('a', 'SELECT count(*) AS c FROM t WHERE h > $1', ['1.5']);
    expect(session.casts.size).toBeGreaterThan(0);
    expect((await run('b', 'SELECT n FROM t', [])).rows).toEqual([[1]]);
    expect(session.casts.size).toBe(0);
    expect((await run('b', 'SELECT count(*) AS c FROM t WHERE n = $1', ['1'])).rows).toEqual([[1]]);
  });
});
