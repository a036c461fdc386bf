/**
 * What the validator refuses by name anywhere in the tree: functions (file readers, catalog and settings
 * introspection, storage statistics, internal functions, sequences, SQL re-entry, variables, sleeps), bare words
 * that reveal the scope, and system catalogs and tables. The allowed node shapes are in ./allowlists.ts.
 *
 * Source: spec/semantic-query-service.md § Query validation (5–8).
 */

const deniedFunctionPrefixes = [
  'read_',
  'pg_',
  'duckdb_',
  'sqlite_',
  'pragma_',
  'parquet_',
  'json_serialize',
  'json_deserialize',
  'json_execute',
  'enable_',
  'disable_',
  'has_',
  'inet_',
  'current_',
  'txid_',
  'icu_calendar',
  '__internal',
];

const deniedFunctions: ReadonlySet<string> = new Set([
  'nextval',
  'currval',
  'setval',
  'lastval',
  'setseed',
  'parse_sql',
  'query',
  'query_table',
  'getenv',
  'getvariable',
  'in_search_path',
  'write_log',
  'sleep_ms',
  'col_description',
  'obj_description',
  'shobj_description',
  'format_type',
  'map_to_pg_oid',
  'get_block_size',
  'glob',
  'sniff_csv',
  'which_secret',
  'sql_auto_complete',
  'checkpoint',
  'force_checkpoint',
  'summary',
  'test_all_types',
  'test_vector_types',
  'histogram_values',
  'seq_scan',
  'arrow_scan',
  'arrow_scan_dumb',
  'truncate_duckdb_logs',
  'parse_duckdb_log_message',
  // Storage statistics and physical layout: a view's filter does not apply to them, so they would
  // reveal min/max, null counts or compression of rows the view hides.
  'stats',
  'vector_type',
]);

/** `current_*` functions that only read the clock or the (fixed) database name. */
const harmlessCurrentFunctions: ReadonlySet<string> = new Set([
  'current_date',
  'current_time',
  'current_timestamp',
  'current_localtime',
  'current_localtimestamp',
  'current_database',
]);

/**
 * True when a scalar, aggregate or window call of `name` is refused anywhere in the tree: file
 * readers, catalog and settings introspection (which would reveal other scopes), storage statistics
 * (`stats`, `vector_type`: computed before a view's filter), internal functions, sequences, SQL
 * re-entry (parse_sql, json_serialize_sql, json_serialize_plan, query), variables and sleeps.
 * @param name - the function name as parsed (compared case-insensitively)
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function isDeniedFunction(name: string): boolean {
  const lower = name.toLowerCase();
  if (harmlessCurrentFunctions.has(lower)) return false;
  return deniedFunctions.has(lower) || deniedFunctionPrefixes.some((prefix) => lower.startsWith(prefix));
}

/**
 * Bare words DuckDB binds as parameterless functions when no column has that name and that would
 * reveal the scope (`SELECT current_schema` returns the scoped schema's name).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const deniedBareWords: ReadonlySet<string> = new Set(['current_schema', 'current_schemas']);

const systemCatalogNames: ReadonlySet<string> = new Set([
  'information_schema',
  'pg_catalog',
  'sqlite_master',
  'sqlite_schema',
  'sqlite_temp_master',
  'sqlite_temp_schema',
  'main',
  'temp',
  'system',
]);

const systemTablePrefixes = ['pg_', 'sqlite_', 'duckdb_', 'pragma_'];

/**
 * Why a catalog, schema or table name is refused by name, or undefined when it is not a system
 * name. Compared case-insensitively: the parser has already removed quotes, so `"MAIN"`, `Main`
 * and `main` all arrive as the same letters.
 * @returns a reason without the `Query rejected: ` prefix
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function systemNameProblem(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('_scope_')) return 'scoped schema names (_scope_…) cannot be used; write bare table names';
  if (systemCatalogNames.has(lower)) {
    return `system catalog "${lower}" cannot be queried; query only the model's tables`;
  }
  if (systemTablePrefixes.some((prefix) => lower.startsWith(prefix))) {
    return `system table "${lower}" cannot be queried; query only the model's tables`;
  }
  return undefined;
}
