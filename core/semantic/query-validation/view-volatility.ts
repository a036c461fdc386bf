/**
 * A dataset's rows are materialised once from its view_query and reused until the view_query or the data changes
 * (the DuckDB engine's scope file), so a view_query whose result depends on the moment or on chance would freeze:
 * `WHERE expires_at > now()` went on serving rows after they expired. Such a view_query is refused before any query
 * of its model runs, with an error naming the dataset, the function and where it is, and what to write instead.
 *
 * The check walks the WHOLE tree json_serialize_sql gives for the view_query (every object and array, so a
 * subquery, CTE, lambda, window or table function argument is searched too). Function names are compared in lower
 * case with any schema or catalog ignored (`NOW()`, `"now"()`, `main.now()`, `system.main.now()` are all `now`); the
 * keywords the engine binds as functions when no column has their name (`current_date`, `CURRENT_TIMESTAMP`,
 * `"localtime"` …) are found as the one-part column references they parse to. Text the parser cannot read is
 * refused too (fail closed): what the check cannot see could hide a volatile call.
 *
 * Source: spec/semantic-query-service.md § What the service does (3), § States (view_query changed);
 * docs/decisions.md D18 § 8.
 */
import { PlatformError } from '../../ports/platform-error.ts';
import type { ParseOutcome } from '../../ports/query-engine.ts';

/**
 * Functions whose value changes between calls of one view_query (lower case): every DuckDB 1.5 function the engine
 * marks VOLATILE or CONSISTENT_WITHIN_QUERY but those whose value is the same on every call of a view_query
 * ({@link steadyFunctions}), the two ICU clock functions it marks CONSISTENT (`current_localtime`,
 * `current_localtimestamp`), the built-in macros that call a listed one (`ago`, `pg_conf_load_time`,
 * `pg_postmaster_start_time`, `current_query`), and the table functions that run SQL from a text the check cannot
 * see (`query`, `query_table`, `json_execute_serialized_sql`). core/adapters/duckdb/volatile-functions.test.ts checks
 * this list against the engine's own `duckdb_functions()`.
 */
export const volatileFunctions: ReadonlySet<string> = new Set([
  // the clock
  'now',
  'today',
  'current_date',
  'current_time',
  'current_timestamp',
  'get_current_time',
  'get_current_timestamp',
  'transaction_timestamp',
  'current_localtime',
  'current_localtimestamp',
  'localtime',
  'localtimestamp',
  'ago',
  'pg_conf_load_time',
  'pg_postmaster_start_time',
  // chance and sequences
  'random',
  'setseed',
  'uuid',
  'uuidv4',
  'uuidv7',
  'gen_random_uuid',
  'nextval',
  'currval',
  // the session, connection and transaction
  'current_connection_id',
  'current_query',
  'current_query_id',
  'current_transaction_id',
  'txid_current',
  // SQL run from text
  'query',
  'query_table',
  'json_execute_serialized_sql',
]);

/**
 * Functions the engine marks VOLATILE or CONSISTENT_WITHIN_QUERY whose value never changes between calls of a
 * view_query, so they are allowed: the scope build's catalog and search path are fixed (`current_database`,
 * `current_schema`, `current_schemas`, `in_search_path`), and the rest are volatile for their side effects only
 * (`error` raises, `sleep_ms` waits, `write_log` logs, `stats` describes its argument).
 */
export const steadyFunctions: ReadonlySet<string> = new Set([
  'current_database',
  'current_schema',
  'current_schemas',
  'in_search_path',
  'error',
  'sleep_ms',
  'write_log',
  'stats',
]);

/** Keywords DuckDB parses as a one-part column reference and binds to a clock function when no column has the name. */
export const volatileKeywords: ReadonlySet<string> = new Set([
  'current_date',
  'current_time',
  'current_timestamp',
  'localtime',
  'localtimestamp',
]);

/**
 * Code of a model refused because a view_query is time-dependent, random or not readable by the check.
 *
 * Source: spec/semantic-query-service.md § Errors (dataset view_query)
 */
export const viewQueryVolatileCode = 'view_query_volatile';

/** One volatile use found in a view_query: what it is (`now()`, `current_date`, `USING SAMPLE`) and where. */
export interface VolatileUse {
  what: string;
  /** 0-based character offset in the view_query when the parser gives one. */
  at?: number;
}

/**
 * Input of {@link checkViewQueries}.
 *
 * Source: spec/semantic-query-service.md § What the service does (3)
 */
export interface CheckViewQueriesInput {
  modelName: string;
  /** The model's datasets: name and view_query SQL. */
  views: readonly { name: string; sql: string }[];
  /** The engine's parser (QueryEngine.parse). */
  parse: (sql: string) => Promise<ParseOutcome>;
}

/**
 * Refuses a model any of whose view_queries calls a {@link volatileFunctions} member, uses a
 * {@link volatileKeywords} member or samples rows without a fixed seed, anywhere in its tree.
 * @throws PlatformError `view_query_volatile` (422): `Model "<m>" cannot be queried: the view_query of dataset "<d>"
 *   uses now() (at character 42) …`, naming the first such use of the first such dataset and what to write instead;
 *   or saying the view_query could not be parsed (the parser's text is not quoted: it may quote the view's SQL)
 *
 * Source: spec/semantic-query-service.md § What the service does (3), § States (view_query changed)
 */
export async function checkViewQueries(input: CheckViewQueriesInput): Promise<void> {
  for (const view of input.views) {
    const outcome = await input.parse(view.sql);
    if (!outcome.ok) {
      throw refusal(
        input.modelName,
        view.name,
        "cannot be read by the engine's parser, so it cannot be checked for time-dependent or random values. Fix " +
          "the view_query (the editor's playground shows the parser's message)",
      );
    }
    const use = findVolatileUse(outcome.statements);
    if (use) throw refusal(input.modelName, view.name, usesMessage(use));
  }
}

/**
 * The first volatile use in a serialised statement list (depth first, in document order), or undefined.
 *
 * Source: spec/semantic-query-service.md § What the service does (3)
 */
export function findVolatileUse(tree: unknown): VolatileUse | undefined {
  if (Array.isArray(tree)) {
    for (const item of tree) {
      const found = findVolatileUse(item);
      if (found) return found;
    }
    return undefined;
  }
  if (tree === null || typeof tree !== 'object') return undefined;
  const node = tree as Record<string, unknown>;
  const own = volatileNode(node);
  if (own) return own;
  return findVolatileUse(Object.values(node));
}

function volatileNode(node: Record<string, unknown>): VolatileUse | undefined {
  const at = typeof node.query_location === 'number' && node.query_location < 2 ** 32 ? node.query_location : undefined;
  if (typeof node.function_name === 'string' && volatileFunctions.has(node.function_name.toLowerCase())) {
    return { what: `${node.function_name.toLowerCase()}()`, at };
  }
  if (node.class === 'COLUMN_REF' && Array.isArray(node.column_names) && node.column_names.length === 1) {
    const name = String(node.column_names[0]).toLowerCase();
    if (volatileKeywords.has(name)) return { what: name, at };
  }
  const sample = node.sample as { seed?: unknown } | null | undefined;
  if (sample && typeof sample === 'object' && (typeof sample.seed !== 'number' || sample.seed < 0)) {
    return { what: 'a sample (USING SAMPLE or TABLESAMPLE) without a seed', at };
  }
  return undefined;
}

function usesMessage(use: VolatileUse): string {
  const where = use.at === undefined ? '' : ` (at character ${use.at + 1})`;
  return `uses ${use.what}${where}, whose value changes from call to call; but a dataset's rows are materialised ` +
    `once and reused until the view_query or the data changes, so the rows it hides would go stale. Compare with ` +
    `a fixed value instead (a literal date or timestamp, changed and published again when it should move, or a ` +
    `column of the data), give a sample a seed (REPEATABLE (42)), or leave the condition to each query`;
}

function refusal(modelName: string, dataset: string, reason: string): PlatformError {
  return new PlatformError(
    viewQueryVolatileCode,
    `Model "${modelName}" cannot be queried: the view_query of dataset "${dataset}" ${reason}. Ask the modeller ` +
      `to change it (request_improvement can say so).`,
    { status: 422 },
  );
}
