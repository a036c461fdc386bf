/**
 * validateQuery against DuckDB's real parser: queries that must pass, and the shape of the result.
 * Rejections live in validate-query-rejections.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbParser } from '../../adapters/duckdb/index.ts';
import { validateQuery } from './index.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

const datasetNames = ['flights', 'airports', 'Carriers'];
const validate = (sql: string) => validateQuery({ sql, parse: (text) => parser.parse(text), datasetNames });

const accepted: string[] = [
  'SELECT * FROM flights',
  'select origin, count(*) from flights group by origin order by 2 desc limit 10',
  'SELECT * FROM FLIGHTS',
  'SELECT * FROM "Flights"',
  'SELECT * FROM carriers',
  'SELECT * FROM "CARRIERS" c',
  'SELECT f.*, a.name FROM flights f JOIN airports a ON f.origin = a.iata',
  'SELECT * FROM flights f LEFT JOIN airports a ON f.origin = a.iata RIGHT JOIN carriers c ON true FULL OUTER JOIN ' +
  'airports b ON true',
  'SELECT * FROM flights JOIN airports USING (iata)',
  'SELECT * FROM flights NATURAL JOIN airports CROSS JOIN carriers',
  'SELECT * FROM flights POSITIONAL JOIN airports',
  'SELECT * FROM flights f ASOF JOIN airports a ON f.date >= a.opened',
  'SELECT * FROM flights SEMI JOIN airports ON true ANTI JOIN carriers ON false',
  "SELECT * FROM flights WHERE origin IN (SELECT iata FROM airports WHERE state = 'CA')",
  'SELECT * FROM flights f WHERE EXISTS (SELECT 1 FROM airports a WHERE a.iata = f.origin)',
  'SELECT * FROM flights WHERE NOT EXISTS (SELECT 1 FROM carriers)',
  'SELECT (SELECT max(delay) FROM flights) AS worst, delay > ALL (SELECT 0) FROM flights',
  'SELECT * FROM flights f WHERE f.delay > (SELECT avg(delay) FROM flights)',
  'SELECT row_number() OVER (PARTITION BY origin ORDER BY delay DESC) AS rn FROM flights QUALIFY rn = 1',
  'SELECT sum(delay) OVER w, lag(delay, 1, 0) OVER w, rank() OVER w, dense_rank() OVER w, ntile(4) OVER w, ' +
  'first_value(delay IGNORE NULLS) OVER w FROM flights WINDOW w AS (ORDER BY date ROWS BETWEEN 2 PRECEDING AND ' +
  'CURRENT ROW)',
  'SELECT percent_rank() OVER (), cume_dist() OVER (), lead(delay) OVER (), last_value(delay) OVER (), ' +
  'nth_value(delay, 2) OVER () FROM flights',
  "SELECT CASE WHEN delay > 0 THEN 'late' WHEN delay < 0 THEN 'early' ELSE 'on time' END, CASE origin WHEN 'SFO' " +
  'THEN 1 END FROM flights',
  'SELECT CAST(delay AS DOUBLE), delay::VARCHAR, TRY_CAST(origin AS INTEGER), delay::DECIMAL(10, 2), ' +
  'date::TIMESTAMP FROM flights',
  "SELECT * FROM flights WHERE delay BETWEEN 1 AND 10 AND origin NOT BETWEEN 'A' AND 'B' AND origin LIKE 'S%' AND " +
  "origin ILIKE 's%' AND origin SIMILAR TO 'S.*'",
  'SELECT * FROM flights WHERE origin IS NOT NULL AND destination IS NULL OR delay IS DISTINCT FROM 0 AND origin ' +
  "IN ('SFO', 'LAX') AND origin NOT IN ('JFK')",
  "SELECT coalesce(delay, 0), nullif(delay, 0), greatest(delay, 0), origin COLLATE nocase, 'a' || origin, -delay, " +
  'delay % 7, delay // 2 FROM flights',
  'SELECT origin, sum(delay) FROM flights GROUP BY GROUPING SETS ((origin), ()) HAVING sum(delay) > 0',
  'SELECT origin, destination, count(*), grouping(origin) FROM flights GROUP BY ROLLUP (origin, destination)',
  'SELECT origin, destination, count(*) FROM flights GROUP BY CUBE (origin, destination)',
  'SELECT origin, count(*) FROM flights GROUP BY ALL ORDER BY ALL',
  'SELECT list_transform([1, 2], x -> x + 1), list_filter([1, 2], lambda y: y > 1), list_reduce([1, 2], (a, b) -> ' +
  'a + b)',
  "SELECT {'a': 1, 'b': [1, 2]}, [1, 2, 3][2], [1, 2, 3][1:2], MAP {'k': 1}, (1, 2), {'a': 1}.a, [x * 2 FOR x IN " +
  '[1, 2] IF x > 1]',
  "SELECT trim(' x '), trim(leading 'x' FROM 'xy'), substring('abc' FROM 1 FOR 2), extract(year FROM DATE " +
  "'2020-01-01'), position('b' IN 'abc'), 'x' LIKE 'y' ESCAPE '!', TIMESTAMP '2020-01-01 10:00' AT TIME ZONE 'UTC'",
  "SELECT current_date, current_timestamp, now(), current_database(), DATE '2020-01-01' + INTERVAL 3 DAY, " +
  "date_trunc('month', date) FROM flights",
  'WITH late AS (SELECT * FROM flights WHERE delay > 0) SELECT count(*) FROM late',
  'WITH a AS (SELECT * FROM flights), b AS (SELECT * FROM a) SELECT * FROM b',
  'WITH a AS MATERIALIZED (SELECT 1 AS x) SELECT * FROM a UNION ALL SELECT * FROM a',
  'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t',
  'WITH RECURSIVE t(n) USING KEY (n) AS (SELECT 1 UNION SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t',
  'WITH flights AS (SELECT 1 AS x) SELECT * FROM flights',
  'WITH secret_orders AS (SELECT 1 AS x) SELECT * FROM secret_orders',
  'SELECT * FROM (WITH q AS (SELECT origin FROM flights) SELECT * FROM q) s',
  'SELECT * FROM flights WHERE EXISTS (WITH q AS (SELECT 1) SELECT * FROM q)',
  'SELECT origin FROM flights UNION SELECT iata FROM airports EXCEPT SELECT 1 INTERSECT SELECT 2',
  'SELECT origin FROM flights UNION ALL BY NAME SELECT iata AS origin FROM airports',
  '(SELECT 1 ORDER BY 1 LIMIT 1) UNION (SELECT 2)',
  "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(x, y)",
  'VALUES (1), (2)',
  "SELECT * FROM generate_series(1, 3), range(5), unnest([1, 2]) u(x), repeat('a', 3)",
  "SELECT * FROM generate_series(TIMESTAMP '2020-01-01', TIMESTAMP '2020-02-01', INTERVAL 1 DAY)",
  'SELECT * FROM range(3) WITH ORDINALITY',
  'SELECT * FROM flights, LATERAL (SELECT flights.delay * 2 AS d) t',
  'SELECT * FROM flights f LEFT JOIN LATERAL (SELECT * FROM airports a WHERE a.iata = f.origin LIMIT 1) s ON true',
  "SELECT * FROM flights PIVOT (sum(delay) FOR origin IN ('SFO', 'LAX') GROUP BY destination)",
  'SELECT * FROM flights UNPIVOT (v FOR k IN (delay, distance))',
  'SELECT * FROM (UNPIVOT flights ON delay, distance INTO NAME k VALUE v)',
  'SELECT * FROM flights TABLESAMPLE 10%',
  'SELECT * FROM flights USING SAMPLE 10 ROWS',
  'SELECT DISTINCT ON (origin) * FROM flights ORDER BY origin, delay DESC NULLS LAST',
  'SELECT DISTINCT origin FROM flights ORDER BY origin ASC NULLS FIRST LIMIT 5 OFFSET 2',
  'SELECT * EXCLUDE (delay) FROM flights',
  'SELECT * REPLACE (delay * 2 AS delay) FROM flights',
  "SELECT COLUMNS('d.*'), COLUMNS(c -> c LIKE 'o%'), *COLUMNS(*) FROM flights",
  'SELECT f.* FROM flights AS f(a, b)',
  'SELECT delay FROM flights ORDER BY delay LIMIT 10%',
  'FROM flights SELECT origin',
  'FROM flights',
  'TABLE flights',
  "SELECT ';'",
  "SELECT 'a;b' AS x, ';' AS y FROM flights",
  'SELECT 1;',
  '-- leading comment\nSELECT 1',
  '/* block */ SELECT 1 /* trailing */',
  'DESCRIBE flights',
  'SHOW flights',
  'DESCRIBE SELECT origin FROM flights',
  'SELECT * FROM (DESCRIBE flights)',
  'SELECT #1 FROM flights',
  'SELECT TRY(1 / 0), x::JSON FROM (SELECT 1 AS x)',
  "SELECT unnest([1, 2]), unnest({'a': 1}), unnest([[1]], recursive := true)",
];

describe('validateQuery accepts allowlisted queries (real DuckDB parser)', () => {
  it.each(accepted)('%s', async (sql) => {
    const result = await validate(sql);
    expect(result.sql).toBe(sql);
  });
});

describe('validateQuery result', () => {
  it('returns the original SQL and no parameters', async () => {
    await expect(validate('SELECT  *  FROM flights')).resolves.toEqual({
      sql: 'SELECT  *  FROM flights',
      parameterCount: 0,
    });
  });

  it.each([
    ['SELECT * FROM flights WHERE delay > $1', 1],
    ['SELECT * FROM flights WHERE delay > $1 AND origin = $2 OR destination = $2', 2],
    ['SELECT * FROM flights WHERE delay > ? AND origin = ?', 2],
    ['SELECT * FROM flights LIMIT $3 OFFSET $2', -1],
    ['SELECT CAST($1 AS INTEGER) + $2, (SELECT $3)', 3],
  ])('reports the highest placeholder of %s', async (sql, count) => {
    if (count === -1) {
      await expect(validate(sql)).rejects.toMatchObject({
        code: 'query_rejected',
        message: expect.stringContaining('without gaps'),
      });
      return;
    }
    expect((await validate(sql)).parameterCount).toBe(count);
  });

  it('accepts a model without the default names only for its own tables', async () => {
    const result = await validateQuery({
      sql: 'SELECT * FROM "flights-3m"',
      parse: (text) => parser.parse(text),
      datasetNames: ['flights-3m'],
    });
    expect(result.parameterCount).toBe(0);
  });
});
