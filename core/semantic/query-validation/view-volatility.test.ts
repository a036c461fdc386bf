/**
 * checkViewQueries against DuckDB's real parser: every spelling of a time-dependent or random call is found wherever
 * it sits in a view_query, the refusal names the model, dataset, function and place; steady view_queries pass. The
 * function list is checked against the engine's own catalog (duckdb_functions), so an engine upgrade that adds a
 * volatile function fails here.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../ports/platform-error.ts';
import { createDuckDbParser } from '../../adapters/duckdb/index.ts';
import { checkViewQueries, steadyFunctions, volatileFunctions, volatileKeywords } from './index.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

const check = (sql: string, name = 'notes') =>
  checkViewQueries({ modelName: 'public_notes', views: [{ name, sql }], parse: (text) => parser.parse(text) });

/** The refusal of `sql`, or undefined when it passes. */
async function refusalOf(sql: string): Promise<PlatformError | undefined> {
  try {
    await check(sql);
    return undefined;
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return error;
  }
}

describe('checkViewQueries', () => {
  it('refuses now() with a located error naming the model, dataset and function, and what to do instead', async () => {
    const error = await refusalOf('SELECT id, note FROM data.items WHERE expires_at > now()');
    expect(error?.code).toBe('view_query_volatile');
    expect(error?.status).toBe(422);
    expect(error?.message).toBe(
      'Model "public_notes" cannot be queried: the view_query of dataset "notes" uses now() (at character 52), whose ' +
        "value changes from call to call; but a dataset's rows are materialised once and reused until the " +
        'view_query or the data changes, so the rows it hides would go stale. Compare with a fixed value instead (a ' +
        'literal date or timestamp, changed and published again when it should move, or a column of the data), give ' +
        'a sample a seed (REPEATABLE (42)), or leave the condition to each query. Ask the modeller to change it ' +
        '(request_improvement can say so).',
    );
  });

  const spellings: [string, string][] = [
    ['SELECT * FROM data.items WHERE expires_at > NOW()', 'now()'],
    ['SELECT * FROM data.items WHERE expires_at > "NOW"()', 'now()'],
    ['SELECT * FROM data.items WHERE expires_at > main.now()', 'now()'],
    ['SELECT * FROM data.items WHERE expires_at > system.main.Now()', 'now()'],
    ['SELECT * FROM data.items WHERE day >= current_date', 'current_date'],
    ['SELECT * FROM data.items WHERE day >= "CURRENT_DATE"', 'current_date'],
    ['SELECT * FROM data.items WHERE seen_at > CURRENT_TIMESTAMP - INTERVAL 1 DAY', 'current_timestamp'],
    ['SELECT * FROM data.items WHERE seen_at > localtimestamp', 'localtimestamp'],
    ['SELECT * FROM data.items WHERE t > localtime', 'localtime'],
    ['SELECT * FROM data.items WHERE t > current_time', 'current_time'],
    ['SELECT * FROM data.items WHERE day = today()', 'today()'],
    ['SELECT * FROM data.items WHERE seen_at > get_current_timestamp()', 'get_current_timestamp()'],
    ['SELECT * FROM data.items WHERE seen_at > current_localtimestamp()', 'current_localtimestamp()'],
    ['SELECT * FROM data.items WHERE seen_at > ago(INTERVAL 1 DAY)', 'ago()'],
    ['SELECT * FROM data.items WHERE seen_at > transaction_timestamp()', 'transaction_timestamp()'],
    ['SELECT * FROM data.items WHERE random() < 0.5', 'random()'],
    ['SELECT *, uuid() AS u FROM data.items', 'uuid()'],
    ['SELECT *, gen_random_uuid() AS u FROM data.items', 'gen_random_uuid()'],
    ["SELECT *, nextval('s') AS n FROM data.items", 'nextval()'],
    ['SELECT * FROM data.items WHERE id IN (SELECT id FROM data.items WHERE seen_at < now())', 'now()'],
    ['WITH fresh AS (SELECT * FROM data.items WHERE seen_at > now()) SELECT * FROM fresh', 'now()'],
    ["SELECT * FROM data.items WHERE EXISTS (SELECT 1 WHERE date_trunc('day', now()) > seen_at)", 'now()'],
    ['SELECT list_filter([1], x -> x < epoch(now())) AS l FROM data.items', 'now()'],
    ['SELECT * FROM data.items QUALIFY row_number() OVER (ORDER BY random()) < 3', 'random()'],
    ["SELECT * FROM query('SELECT * FROM data.items WHERE seen_at > now()')", 'query()'],
    ['SELECT * FROM data.items USING SAMPLE 10%', 'a sample (USING SAMPLE or TABLESAMPLE) without a seed'],
    ['SELECT * FROM data.items TABLESAMPLE 5 ROWS', 'a sample (USING SAMPLE or TABLESAMPLE) without a seed'],
  ];
  it.each(spellings)('finds %s', async (sql, what) => {
    const error = await refusalOf(sql);
    expect(error?.code).toBe('view_query_volatile');
    expect(error?.message).toContain(` uses ${what}`);
  });

  it('passes steady view_queries: fixed dates, qualified columns named like keywords, seeded samples', async () => {
    const steady = [
      "SELECT id, note FROM data.items WHERE tenant = 'public'",
      "SELECT * FROM data.items WHERE expires_at > TIMESTAMP '2030-01-01 00:00:00'",
      'SELECT i.current_date, i.uuid FROM data.items i',
      'SELECT * FROM data.items USING SAMPLE 10% (bernoulli, 42)',
      "SELECT *, strftime(seen_at, '%Y') AS year, hash(id) AS h FROM data.items",
    ];
    for (const sql of steady) expect(await refusalOf(sql), sql).toBeUndefined();
  });

  it("refuses a view_query its parser cannot read, without quoting the view's SQL", async () => {
    const error = await refusalOf("SELECT * FROM data.items WHERE secret_tenant = 'acme' AND");
    expect(error?.code).toBe('view_query_volatile');
    expect(error?.message).toMatch(
      /^Model "public_notes" cannot be queried: the view_query of dataset "notes" cannot /,
    );
    expect(error?.message).not.toContain('acme');
  });
});

describe('the volatile function list', () => {
  it('holds every function the engine marks volatile or consistent within a query, but the steady ones', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        "SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE stability IN ('VOLATILE', " +
          "'CONSISTENT_WITHIN_QUERY') ORDER BY 1",
      );
      const marked = reader.getRows().map(([name]) => String(name));
      expect(marked.length).toBeGreaterThan(20);
      expect(marked.filter((name) => !volatileFunctions.has(name) && !steadyFunctions.has(name))).toEqual([]);
      // Built-in macros whose body calls a listed function are listed too (`ago` is `current_timestamp - i`).
      const macros = await connection.runAndReadAll(
        "SELECT DISTINCT lower(function_name), macro_definition FROM duckdb_functions() WHERE function_type = 'macro'",
      );
      const listed = [...volatileFunctions, ...volatileKeywords].filter((name) => !steadyFunctions.has(name));
      const calling = macros.getRows().filter(([, body]) =>
        listed.some((name) => new RegExp(`\\b${name}\\b`, 'i').test(String(body)))
      ).map(([name]) => String(name));
      expect(calling.filter((name) => !volatileFunctions.has(name))).toEqual([]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
