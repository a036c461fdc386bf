/**
 * validateQuery against DuckDB's real parser: every rule's rejections, with the message checks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbParser } from '../../adapters/duckdb/index.ts';
import { validateQuery } from './index.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

const datasetNames = ['flights', 'airports', 'Carriers'];
const ourTables = 'tables of this model are: flights, airports, Carriers';
const validate = (sql: string) => validateQuery({ sql, parse: (text) => parser.parse(text), datasetNames });

/** [sql, code, message pattern]. */
type Case = [string, 'query_rejected' | 'query_parse_error', RegExp];

const kindRejected =
  /^Query rejected: only (one read-only )?SELECT, WITH (and|or) DESCRIBE statements? (are|is) allowed/;
const oneStatement = /^Query rejected: exactly one statement is allowed, but the query holds 2/;
const nul = /^Query rejected: the SQL contains a NUL character \(U\+0000\).*Remove the NUL character/;
const empty = /^Could not parse query: the query is empty/;
const explainAnalyze = new RegExp(
  String.raw`^Query rejected: EXPLAIN ANALYZE is not allowed because it runs the statement\. ` +
    String.raw`To check a query, run it with LIMIT 1`,
);
const explain =
  /^Query rejected: EXPLAIN is not available because a plan would show how the model's datasets are built/;
const anyExplain = /^Query rejected: EXPLAIN (ANALYZE )?is not/;
const systemCatalog = /^Query rejected: system catalog "[a-z_]+" cannot be queried/;
const systemTable = /^Query rejected: system table "[a-z_]+" cannot be queried/;
const scoped = /^Query rejected: scoped schema names \(_scope_…\) cannot be used/;
const bare = /^Query rejected: table references must be bare names without a schema or catalog prefix/;
const files = /^Query rejected: files cannot be read/;
const tableFunction = /^Query rejected: table function "[^"]+" is not allowed/;
const fn = /^Query rejected: function "[^"]+" is not allowed/;
const qualifiedFn = /^Query rejected: functions cannot be called with a schema or catalog prefix/;
const unknown = (name: string) => new RegExp(`^Query rejected: unknown table "${name}"; ${ourTables}$`);

const statementRules: Case[] = [
  ["SELECT 1\u0000; CREATE MACRO upper(x) AS 'PWNED'", 'query_rejected', nul],
  ['SELECT * FROM flights\u0000', 'query_rejected', nul],
  ['\u0000', 'query_rejected', nul],
  ['SELECT 1; SELECT 2', 'query_rejected', oneStatement],
  ["SELECT ';'; SELECT 2", 'query_rejected', oneStatement],
  ['SELECT * FROM flights; SELECT * FROM airports;', 'query_rejected', oneStatement],
  ['SELECT * FROM flights; DROP TABLE flights', 'query_rejected', kindRejected],
  ['', 'query_parse_error', empty],
  ['   ', 'query_parse_error', empty],
  ['-- only a comment', 'query_parse_error', empty],
  ['/* x */', 'query_parse_error', empty],
  [';', 'query_parse_error', empty],
  ['SELEC 1', 'query_parse_error', /^Could not parse query: syntax error at or near "SELEC"$/],
  ['SELECT FROM WHERE', 'query_parse_error', /^Could not parse query: syntax error at or near "WHERE"$/],
  ["SELECT 'unterminated", 'query_parse_error', /^Could not parse query: unterminated quoted string/],
  ['SELECT 1 INTO t', 'query_parse_error', /^Could not parse query: SELECT INTO not supported!$/],
  ['SELECT * FROM flights FOR UPDATE', 'query_parse_error', /^Could not parse query: SELECT locking clause/],
  ['EXPLAIN ANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['explain analyze select 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN /* x */ ANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN/**/ANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN -- c\n ANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN /* a /* nested */ b */ AnAlYzE SELECT 1', 'query_rejected', explainAnalyze],
  ['/* lead */ EXPLAIN ANALYSE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN (ANALYZE) SELECT 1', 'query_rejected', anyExplain],
  ['EXPLAIN', 'query_parse_error', /^Could not parse query: /],
  ['EXPLAIN SELECT 1; SELECT 2', 'query_rejected', explain],
  ['EXPLAIN EXPLAIN SELECT 1', 'query_parse_error', /^Could not parse query: syntax error/],
  ['EXPLAIN SELECT * FROM secret_orders', 'query_rejected', explain],
  ['EXPLAIN SET threads = 8', 'query_rejected', anyExplain],
  ['EXPLAIN SELECT * FROM flights', 'query_rejected', explain],
  ['explain select origin from flights where delay > $1', 'query_rejected', explain],
  ['EXPLAIN /* plan */ WITH a AS (SELECT 1) SELECT * FROM a', 'query_rejected', explain],
  ['  -- why\n  EXPLAIN\n  SELECT 1 UNION SELECT 2', 'query_rejected', explain],
  ['EXPLAIN (FORMAT JSON) SELECT * FROM flights', 'query_rejected', anyExplain],
  ['EXPLAIN\rANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['--x\rEXPLAIN ANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN\fANALYZE SELECT 1', 'query_rejected', explainAnalyze],
  ['EXPLAIN\vANALYZE SELECT 1', 'query_parse_error', /^Could not parse query: syntax error/],
];

/**
 * The attack round's reproductions (a comment ended by \r that DuckDB honours and a home-made
 * lexer did not, writes through EXPLAIN ANALYZE, catalog and settings reads) and variants: other
 * line terminators, nesting, quoting. Each must be refused; none may reach another model's data.
 */
const bypassRules: Case[] = [
  ['--\rSELECT * FROM data.secret_items /*\nEXPLAIN SELECT 1 -- */', 'query_rejected', bare],
  ['--\r\nSELECT * FROM data.secret_items /*\nEXPLAIN SELECT 1 -- */', 'query_rejected', bare],
  ['-- \rSELECT * FROM duckdb_views() /*\nEXPLAIN SELECT 1 -- */', 'query_rejected', tableFunction],
  ["--\rSELECT current_setting('temp_directory') /*\nEXPLAIN SELECT 1 -- */", 'query_rejected', fn],
  ['--\rSELECT * FROM _scope_other.items /*\nEXPLAIN SELECT 1 -- */', 'query_rejected', scoped],
  ['--\u2028EXPLAIN SELECT 1\nSELECT * FROM data.secret_items', 'query_rejected', bare],
  ['/* /* nested */ EXPLAIN */ SELECT * FROM data.secret_items', 'query_rejected', bare],
  ['/* EXPLAIN */ SELECT * FROM "data"."secret_items"', 'query_rejected', bare],
  ["EXPLAIN ANALYZE CREATE MACRO memory.main.upper(x) AS 'PWNED'", 'query_rejected', explainAnalyze],
  ['EXPLAIN ANALYZE CREATE TABLE memory.main.t AS SELECT 1', 'query_rejected', explainAnalyze],
  ["--\rEXPLAIN ANALYZE CREATE MACRO upper(x) AS 'PWNED' /*\n SELECT 1 */", 'query_rejected', explainAnalyze],
  ["EXPLAIN ANALYSE CREATE OR REPLACE MACRO lower(x) AS 'PWNED'", 'query_rejected', explainAnalyze],
  ['/**/EXPLAIN/**/ANALYZE/**/CREATE MACRO m(x) AS x', 'query_rejected', explainAnalyze],
  ["SELECT 1; EXPLAIN ANALYZE CREATE MACRO upper(x) AS 'PWNED'", 'query_rejected', kindRejected],
  ["CREATE MACRO upper(x) AS 'PWNED'", 'query_rejected', kindRejected],
  ['CREATE TABLE memory.main.t AS SELECT 1', 'query_rejected', kindRejected],
  ['SET threads = 64', 'query_rejected', kindRejected],
  ['RESET search_path', 'query_rejected', kindRejected],
  ['PRAGMA enable_profiling', 'query_rejected', kindRejected],
  ['CALL duckdb_views()', 'query_rejected', kindRejected],
  ["ATTACH ':memory:' AS x", 'query_rejected', kindRejected],
  ['USE memory', 'query_rejected', kindRejected],
  ["COPY (SELECT 1) TO '/tmp/x.csv'", 'query_rejected', kindRejected],
  ['CHECKPOINT', 'query_rejected', kindRejected],
  ['SELECT stats(origin) FROM flights', 'query_rejected', fn],
  ['SELECT STATS(delay), stats("origin") FROM flights', 'query_rejected', fn],
  ['SELECT vector_type(origin) FROM flights', 'query_rejected', fn],
  ["SELECT __internal_compress_string_ubigint('a') FROM flights", 'query_rejected', fn],
  ['SELECT (SELECT stats(x) FROM (SELECT delay AS x FROM flights)) AS s', 'query_rejected', fn],
  ...[
    'SET threads = 8',
    "SET search_path = 'main'",
    'RESET search_path',
    'PRAGMA version',
    'CALL pragma_version()',
    "COPY flights TO 'x.csv'",
    "COPY (SELECT 1) TO '/tmp/x.csv'",
    "ATTACH 'x.db' AS y",
    'DETACH data',
    'USE main',
    'INSERT INTO flights VALUES (1)',
    'UPDATE flights SET delay = 0',
    'DELETE FROM flights',
    'CREATE TABLE t AS SELECT 1',
    'CREATE VIEW v AS SELECT 1',
    'DROP VIEW flights',
    'INSTALL httpfs',
    'LOAD httpfs',
    'BEGIN',
    'CHECKPOINT',
    'VACUUM',
    "EXPORT DATABASE 'x'",
    'PREPARE p AS SELECT 1',
    'EXECUTE p',
    'PIVOT flights ON origin USING sum(delay)',
    'ANALYZE',
  ].map((sql): Case => [sql, 'query_rejected', kindRejected]),
  ['SUMMARIZE flights', 'query_rejected', /^Query rejected: only DESCRIBE <table> is allowed/],
  ['SHOW TABLES', 'query_rejected', /^Query rejected: only DESCRIBE <table> is allowed/],
  ['SHOW ALL TABLES', 'query_rejected', /^Query rejected: only DESCRIBE <table> is allowed/],
  ['DESCRIBE', 'query_rejected', /^Query rejected: only DESCRIBE <table> is allowed/],
  ['DESCRIBE secret_orders', 'query_rejected', unknown('secret_orders')],
  ['DESCRIBE data.flights', 'query_rejected', bare],
  ['SELECT * FROM (DESCRIBE secret_orders)', 'query_rejected', unknown('secret_orders')],
];

const tableRules: Case[] = [
  ['SELECT * FROM secret_orders', 'query_rejected', unknown('secret_orders')],
  ['SELECT * FROM flights WHERE origin IN (SELECT x FROM secret_orders)', 'query_rejected', unknown('secret_orders')],
  ['SELECT * FROM flights WHERE EXISTS (SELECT 1 FROM secret_orders)', 'query_rejected', unknown('secret_orders')],
  ['SELECT (SELECT count(*) FROM secret_orders) FROM flights', 'query_rejected', unknown('secret_orders')],
  ['SELECT * FROM flights JOIN secret_orders ON true', 'query_rejected', unknown('secret_orders')],
  ['SELECT * FROM flights UNION SELECT * FROM secret_orders', 'query_rejected', unknown('secret_orders')],
  ['SELECT list_transform([1], x -> (SELECT count(*) FROM secret_orders))', 'query_rejected', unknown('secret_orders')],
  ['WITH a AS (SELECT * FROM secret_orders) SELECT * FROM a', 'query_rejected', unknown('secret_orders')],
  ['SELECT * FROM (WITH a AS (SELECT 1) SELECT * FROM a) s, a', 'query_rejected', unknown('a')],
  ['WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a', 'query_rejected', unknown('b')],
  ['WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM u) SELECT * FROM t', 'query_rejected', unknown('u')],
  ['SELECT * FROM tables', 'query_rejected', unknown('tables')],
  ['SELECT * FROM data.flights', 'query_rejected', bare],
  ['SELECT * FROM "data"."flights"', 'query_rejected', bare],
  ['SELECT * FROM data.main.flights', 'query_rejected', systemCatalog],
  ['SELECT * FROM memory.main.flights', 'query_rejected', systemCatalog],
  ['SELECT * FROM other_catalog.other_schema.flights', 'query_rejected', bare],
  ['SELECT * FROM main.flights', 'query_rejected', systemCatalog],
  ['SELECT * FROM "main"."flights"', 'query_rejected', systemCatalog],
  ['SELECT * FROM MAIN.flights', 'query_rejected', systemCatalog],
  ['SELECT * FROM $$main$$', 'query_rejected', systemCatalog],
  ['SELECT * FROM $tag$main$tag$.flights', 'query_parse_error', /^Could not parse query: syntax error/],
  ['SELECT * FROM temp.main.x', 'query_rejected', systemCatalog],
  ['SELECT * FROM system.main.duckdb_tables', 'query_rejected', systemCatalog],
  ['SELECT * FROM information_schema.tables', 'query_rejected', systemCatalog],
  ['SELECT * FROM "information_schema"."tables"', 'query_rejected', systemCatalog],
  ['SELECT * FROM INFORMATION_SCHEMA.TABLES', 'query_rejected', systemCatalog],
  ['SELECT * FROM "INFORMATION_SCHEMA" . "tables"', 'query_rejected', systemCatalog],
  [
    'SELECT * FROM U&"\\0069nformation_schema".tables',
    'query_parse_error',
    /^Could not parse query: unicode_to_utf8 NOT IMPLEMENTED$/,
  ],
  ['SELECT * FROM pg_catalog.pg_tables', 'query_rejected', systemCatalog],
  ['SELECT * FROM information_schema', 'query_rejected', systemCatalog],
  ['FROM pg_views', 'query_rejected', systemTable],
  ['SELECT * FROM "pg_views"', 'query_rejected', systemTable],
  ['SELECT * FROM PG_Settings', 'query_rejected', systemTable],
  ['SELECT * FROM sqlite_master', 'query_rejected', systemCatalog],
  ['SELECT * FROM sqlite_schema', 'query_rejected', systemCatalog],
  ['SELECT * FROM "SQLITE_TEMP_MASTER"', 'query_rejected', systemCatalog],
  ['SELECT * FROM duckdb_tables', 'query_rejected', systemTable],
  ['SELECT * FROM pragma_database_list', 'query_rejected', systemTable],
  ['WITH pg_views AS (SELECT 1) SELECT * FROM pg_views', 'query_rejected', systemTable],
  ['SELECT * FROM _scope_flights_abc.flights', 'query_rejected', scoped],
  ['SELECT * FROM "_SCOPE_x"."flights"', 'query_rejected', scoped],
  ['SELECT * FROM _scope_x', 'query_rejected', scoped],
  ["SELECT * FROM 'x.csv'", 'query_rejected', files],
  ["SELECT * FROM 'data/flights.parquet'", 'query_rejected', files],
  ['SELECT * FROM "x.parquet"', 'query_rejected', files],
  ["SELECT * FROM E'/etc/passwd'", 'query_rejected', files],
  [
    'SELECT * FROM flights AT (VERSION => 1)',
    'query_rejected',
    /^Query rejected: unsupported SQL construct \(AT clause\)/,
  ],
];

const functionRules: Case[] = [
  ...[
    "read_csv('/etc/passwd')",
    "read_csv_auto('x.csv')",
    "read_parquet('x.parquet')",
    "read_json('x.json')",
    "read_json_auto('x')",
    "read_blob('x')",
    "read_text('x')",
    "parquet_scan('x')",
    "glob('*')",
    "query('SELECT 1')",
    "query_table('flights')",
    "sniff_csv('x')",
    'duckdb_tables()',
    'duckdb_settings()',
    'pg_timezone_names()',
    "json_each('{}')",
    'pragma_table_info(1)',
    'histogram(flights, delay)',
    'test_all_types()',
    "parse_sql('x')",
    "json_execute_serialized_sql('x')",
    'sql_auto_complete(1)',
    'which_secret(1, 2)',
  ].map((call): Case => [`SELECT * FROM ${call}`, 'query_rejected', tableFunction]),
  ['SELECT * FROM main.range(3)', 'query_rejected', tableFunction],
  ["SELECT * FROM flights, (SELECT * FROM read_csv('x'))", 'query_rejected', tableFunction],
  ...[
    "read_text('x')",
    "pg_read_file('x')",
    "pg_ls_dir('.')",
    "nextval('s')",
    "currval('s')",
    "setval('s', 1)",
    "getvariable('x')",
    "current_setting('threads')",
    'current_schema()',
    'current_schemas(true)',
    'current_query()',
    "json_serialize_sql('SELECT 1')",
    "json_deserialize_sql('x')",
    "json_serialize_plan('SELECT 1')",
    "parse_sql('x')",
    "getenv('HOME')",
    'duckdb_functions()',
    'sleep_ms(10)',
    'pg_sleep(1)',
    "write_log('x')",
    "in_search_path('memory', 'x')",
    'pg_get_viewdef(1)',
    'col_description(1, 1)',
    'format_type(1, 1)',
    'txid_current()',
    "has_table_privilege('x', 'select')",
    'setseed(0.5)',
    'pg_typeof(1)',
    'enable_profiling()',
    "query('SELECT 1')",
  ].map((call): Case => [`SELECT ${call} FROM flights`, 'query_rejected', fn]),
  ["SELECT sum(delay) FILTER (WHERE origin = current_setting('x')) FROM flights", 'query_rejected', fn],
  ["SELECT count(*) OVER (PARTITION BY getvariable('x')) FROM flights", 'query_rejected', fn],
  ['SELECT current_schema', 'query_rejected', /^Query rejected: "current_schema" is not available/],
  ['SELECT main.abs(-1)', 'query_rejected', qualifiedFn],
  ['SELECT pg_catalog.lower(origin) FROM flights', 'query_rejected', qualifiedFn],
  ['SELECT system.main.abs(1)', 'query_rejected', qualifiedFn],
  ['SELECT origin.len() FROM flights', 'query_rejected', qualifiedFn],
  ['SELECT $name', 'query_rejected', /^Query rejected: named parameter "\$name" is not supported/],
  ['SELECT $1, $3', 'query_rejected', /without gaps \(the query uses \$1, \$3\)/],
];

describe.each([
  ['statement kinds, counts, EXPLAIN, DESCRIBE and parse errors', statementRules],
  ["the attack round's bypasses, writes and statistics, with variants", bypassRules],
  ['table references, catalogs and prefixes', tableRules],
  ['table and scalar functions, parameters', functionRules],
])('validateQuery rejects: %s', (_title, cases) => {
  it.each(cases)('%s', async (sql, code, message) => {
    const error = await validate(sql).then(() => undefined, (caught: unknown) => caught);
    expect(error).toMatchObject({ code, name: 'PlatformError' });
    expect((error as Error).message).toMatch(message);
  });
});

describe('rejection messages', () => {
  it("list only the requested model's tables, never other models", async () => {
    const error =
      (await validate('SELECT * FROM flights WHERE origin IN (SELECT x FROM secret_orders)').catch((e: unknown) =>
        e
      )) as Error;
    expect(error.message).toBe(`Query rejected: unknown table "secret_orders"; ${ourTables}`);
    const other = (await validateQuery({
      sql: 'SELECT * FROM flights',
      parse: (t) => parser.parse(t),
      datasetNames: ['secret_orders'],
    }).catch((e: unknown) => e)) as Error;
    expect(other.message).toBe('Query rejected: unknown table "flights"; tables of this model are: secret_orders');
  });

  it('carries the parser text verbatim for parse errors', async () => {
    const outcome = await parser.parse('SELECT * FROM');
    expect(outcome.ok).toBe(false);
    const error = (await validate('SELECT * FROM').catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`Could not parse query: ${outcome.ok ? '' : outcome.message}`);
  });
});
