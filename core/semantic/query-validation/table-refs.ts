/**
 * Checks of the nodes that name things in a catalog: base tables, table functions, DESCRIBE
 * (SHOW_REF) and function calls.
 *
 * Source: spec/semantic-query-service.md § Query validation (4–8).
 */
import { allowedTableFunctions, parserQualifiedFunctions } from './allowlists.ts';
import { deniedBareWords, isDeniedFunction, systemNameProblem } from './denylists.ts';
import { rejected, tablesOfModel, unknownTable, unsupportedConstruct } from './messages.ts';

/**
 * The model's tables: lower-cased names for lookups and the names as written for messages.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface ModelTables {
  lowerNames: ReadonlySet<string>;
  names: readonly string[];
}

/**
 * A parsed JSON node.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export type TreeNode = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * A BASE_TABLE must be a bare name of one of the model's tables or of a CTE in scope, and never a
 * system name, a `_scope_` name or a file path.
 * @param ctes - lower-cased CTE names visible at this point
 * @throws PlatformError `query_rejected`
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function checkBaseTable(node: TreeNode, ctes: ReadonlySet<string>, tables: ModelTables): void {
  const catalog = text(node.catalog_name);
  const schema = text(node.schema_name);
  const table = text(node.table_name);
  for (const part of [catalog, schema, table]) {
    const problem = systemNameProblem(part);
    if (problem) throw rejected(`${problem}; ${tablesOfModel(tables.names)}`);
  }
  if (catalog !== '' || schema !== '') {
    throw rejected(
      `table references must be bare names without a schema or catalog prefix (write "${table}", not "${
        [catalog, schema, table].filter(Boolean).join('.')
      }"); ${tablesOfModel(tables.names)}`,
    );
  }
  if (node.at_clause !== null && node.at_clause !== undefined) throw unsupportedConstruct('AT clause');
  const lower = table.toLowerCase();
  if (ctes.has(lower) || tables.lowerNames.has(lower)) return;
  if (/[./\\:*?]/.test(table)) {
    throw rejected(`files cannot be read ("${table}"); query the model's tables instead: ${tables.names.join(', ')}`);
  }
  throw unknownTable(table, tables.names);
}

/**
 * A TABLE_FUNCTION must call one of generate_series, range, unnest, repeat, from_json, unqualified.
 * @throws PlatformError `query_rejected`
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function checkTableFunction(node: TreeNode): void {
  const call = node.function as TreeNode | null;
  if (!call || call.class !== 'FUNCTION') throw unsupportedConstruct('table function without a function call');
  const name = text(call.function_name);
  const qualified = text(call.catalog) !== '' || text(call.schema) !== '';
  if (qualified || !allowedTableFunctions.has(name.toLowerCase())) {
    throw rejected(
      `table function "${name}" is not allowed; the allowed table functions are ${
        [...allowedTableFunctions].join(', ')
      } and VALUES lists.`,
    );
  }
}

/**
 * A SHOW_REF is allowed only as DESCRIBE of a query or table (`DESCRIBE flights`); SHOW TABLES,
 * SHOW ALL TABLES, a bare DESCRIBE and SUMMARIZE are refused.
 * @throws PlatformError `query_rejected`
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function checkShowRef(node: TreeNode): void {
  const describesQuery = node.show_type === 'DESCRIBE' && node.query !== null && typeof node.query === 'object';
  const unnamed = text(node.table_name) === '' && text(node.schema_name) === '' && text(node.catalog_name) === '';
  if (!describesQuery || !unnamed) {
    throw rejected(
      'only DESCRIBE <table> is allowed among SHOW, DESCRIBE and SUMMARIZE statements; write DESCRIBE followed by ' +
        "one of the model's tables.",
    );
  }
}

/**
 * A FUNCTION or WINDOW call: no file readers, catalog/settings introspection, sequences or SQL
 * re-entry, and no schema or catalog qualifier except the `main.` the parser writes itself.
 * @throws PlatformError `query_rejected`
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function checkFunctionCall(node: TreeNode): void {
  const name = text(node.function_name);
  const catalog = text(node.catalog);
  const schema = text(node.schema);
  if (isDeniedFunction(name)) {
    throw rejected(`function "${name}" is not allowed; use ordinary scalar, aggregate and window functions.`);
  }
  const parserWritten = catalog === '' && schema === 'main' && parserQualifiedFunctions.has(name.toLowerCase());
  if ((catalog !== '' || schema !== '') && !parserWritten) {
    throw rejected(
      `functions cannot be called with a schema or catalog prefix ("${
        [catalog, schema, name].filter(Boolean).join('.')
      }"); call "${name}(…)" without a prefix.`,
    );
  }
}

/**
 * A COLUMN_REF of one part that DuckDB would bind as a scope-revealing function when no column has
 * that name (`current_schema`).
 * @throws PlatformError `query_rejected`
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function checkColumnRef(node: TreeNode): void {
  const names = Array.isArray(node.column_names) ? node.column_names : [];
  if (names.length === 1 && deniedBareWords.has(String(names[0]).toLowerCase())) {
    throw rejected(`"${String(names[0])}" is not available; query the model's tables.`);
  }
}
