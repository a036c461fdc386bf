/**
 * A query process's connection keeps the prepared statement of each SQL text it ran successfully: the same text
 * runs again without a prepare, with its new params bound, and never across a search_path change or after a
 * failure.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxPreparedStatements } from './prepared-statements.ts';
import { openQuerySession, type QuerySession, runQuery } from './run-query.ts';

let instance: DuckDBInstance;
let session: QuerySession;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const setup = await instance.connect();
  await setup.run(
    'CREATE SCHEMA a; CREATE TABLE a.t AS SELECT x FROM range(10) r(x); CREATE SCHEMA b; ' +
      'CREATE TABLE b.t AS SELECT x FROM range(100) r(x)',
  );
  setup.closeSync();
  session = await openQuerySession(instance);
});
afterAll(() => {
  session.statements.clear();
  session.connection.closeSync();
  instance.closeSync();
});

const run = (scope: string, sql: string, params: string[] = []) =>
  runQuery(session, { scope, sql, params, maxRows: 1000, maxBytes: 4_194_304 }).result;
const prepares = () => session.statements.preparedCount;

describe('prepared statements per SQL text', () => {
  it('runs a text again without preparing it, binding the new params with their types', async () => {
    const sql = 'SELECT count(*) AS n FROM t WHERE x > $1';
    const before = prepares();
    expect((await run('a', sql, ['5'])).rows).toEqual([[4]]);
    expect((await run('a', sql, ['8'])).rows).toEqual([[1]]);
    await expect(run('a', sql, ['eight'])).rejects.toMatchObject({ code: 'query_invalid_params' });
    expect((await run('a', sql, ['-1'])).rows).toEqual([[10]]);
    // Prepared once, then again after the refused params freed it.
    expect(prepares() - before).toBe(2);
  });

  it('prepares again in another scope, so a text never reads the tables of the scope it was prepared in', async () => {
    const sql = 'SELECT count(*) AS n FROM t';
    const before = prepares();
    expect((await run('a', sql)).rows).toEqual([[10]]);
    expect((await run('b', sql)).rows).toEqual([[100]]);
    expect((await run('b', sql)).rows).toEqual([[100]]);
    expect((await run('a', sql)).rows).toEqual([[10]]);
    expect(prepares() - before).toBe(3);
  });

  it('frees the statement of a failed, refused or interrupted run', async () => {
    const failing = "SELECT CASE WHEN x = 9 THEN error('boom') ELSE x END FROM t";
    const before = prepares();
    await expect(run('a', failing)).rejects.toMatchObject({ code: 'query_failed' });
    await expect(run('a', failing)).rejects.toMatchObject({ code: 'query_failed' });
    await expect(run('a', 'EXPLAIN SELECT 1')).rejects.toMatchObject({ code: 'query_rejected' });
    await expect(run('a', 'EXPLAIN SELECT 1')).rejects.toMatchObject({ code: 'query_rejected' });
    const slowSql = 'SELECT count(*) FROM range(10000000000) r(x) WHERE x % 7 = 123456789';
    const slow = runQuery(session, { scope: 'a', sql: slowSql, params: [], maxRows: 10, maxBytes: 4096 });
    setTimeout(() => slow.interrupt(), 100);
    await expect(slow.result).rejects.toMatchObject({ message: expect.stringMatching(/interrupt/i) });
    expect(prepares() - before).toBe(5);
    expect((await run('a', 'SELECT max(x) FROM t')).rows).toEqual([[9]]);
  });

  it("keeps a capped result's statement and answers the next query in full", async () => {
    const sql = 'SELECT x FROM range(5000) r(x)';
    const before = prepares();
    expect(await run('a', sql)).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    const again = await run('a', sql);
    expect(again).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(again.rows[999]).toEqual([999]);
    expect(prepares() - before).toBe(1);
  });

  it(`keeps at most ${maxPreparedStatements} statements, the least recently used freed first`, async () => {
    for (let i = 0; i < maxPreparedStatements + 5; i += 1) await run('a', `SELECT ${i} AS n`);
    expect(session.statements.size).toBe(maxPreparedStatements);
    const before = prepares();
    await run('a', `SELECT ${maxPreparedStatements + 4} AS n`);
    expect(prepares()).toBe(before);
    await run('a', 'SELECT 0 AS n');
    expect(prepares()).toBe(before + 1);
  });
});
