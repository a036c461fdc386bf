/**
 * A query process's one connection serves query after query: search_path follows the scope, and a
 * failed, refused or interrupted query leaves the connection ready for the next.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQuerySession, type QuerySession, runQuery } from './run-query.ts';

let instance: DuckDBInstance;
let session: QuerySession;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const setup = await instance.connect();
  await setup.run(
    "CREATE SCHEMA a; CREATE VIEW a.t AS SELECT 'from a' AS v; CREATE SCHEMA b; CREATE VIEW b.t AS SELECT 'from b' " +
      'AS v',
  );
  setup.closeSync();
  session = await openQuerySession(instance);
});
afterAll(() => {
  session.connection.closeSync();
  instance.closeSync();
});

const run = (scope: string, sql: string) =>
  runQuery(session, { scope, sql, params: [], maxRows: 1000, maxBytes: 4_194_304 });

describe('runQuery on one session', () => {
  it('follows the scope of each query, across failures and refusals', async () => {
    expect((await run('a', 'SELECT v FROM t').result).rows).toEqual([['from a']]);
    await expect(run('b', 'SELECT nope FROM t').result).rejects.toMatchObject({ code: 'query_failed' });
    await expect(run('b', 'CREATE TABLE x AS SELECT 1').result).rejects.toMatchObject({ code: 'query_rejected' });
    expect((await run('b', 'SELECT v FROM t').result).rows).toEqual([['from b']]);
    expect((await run('a', 'SELECT v FROM t').result).rows).toEqual([['from a']]);
  });

  it('answers the next query after an interrupted one', async () => {
    const slow = run('a', 'SELECT count(*) FROM range(10000000000) r(x) WHERE x % 7 = 123456789');
    setTimeout(() => slow.interrupt(), 100);
    await expect(slow.result).rejects.toMatchObject({
      code: 'query_failed',
      message: expect.stringMatching(/interrupt/i),
    });
    expect((await run('a', 'SELECT v FROM t').result).rows).toEqual([['from a']]);
  });

  it('leaves a capped, unfinished result behind without disturbing the next query', async () => {
    const capped = await run('a', 'SELECT x FROM range(5000) r(x)').result;
    expect(capped).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(capped.rows).toHaveLength(1000);
    expect((await run('b', 'SELECT v FROM t').result).rows).toEqual([['from b']]);
  });
});
