/**
 * What the validator lets through, built from DuckDB 1.5.6's json_serialize_sql output over a broad
 * corpus (joins, subqueries, windows, CASE, CAST, IN, EXISTS, LATERAL, UNNEST, PIVOT/UNPIVOT,
 * QUALIFY, GROUPING SETS, lambdas, struct/list literals, COLLATE, parameters, CTEs, set operations,
 * VALUES lists, table functions, DESCRIBE). Anything not listed here is rejected (fail closed); names refused
 * anywhere (functions, bare words, system catalogs) are in ./denylists.ts.
 *
 * Source: spec/semantic-query-service.md § Query validation (2, 5–8).
 */

/** Expression `class` → allowed `type` values. */
const expressionKinds: Record<string, readonly string[]> = {
  BETWEEN: ['COMPARE_BETWEEN'],
  CASE: ['CASE_EXPR'],
  CAST: ['OPERATOR_CAST'],
  COLLATE: ['COLLATE'],
  COLUMN_REF: ['COLUMN_REF'],
  COMPARISON: [
    'COMPARE_EQUAL',
    'COMPARE_NOTEQUAL',
    'COMPARE_LESSTHAN',
    'COMPARE_GREATERTHAN',
    'COMPARE_LESSTHANOREQUALTO',
    'COMPARE_GREATERTHANOREQUALTO',
    'COMPARE_DISTINCT_FROM',
    'COMPARE_NOT_DISTINCT_FROM',
  ],
  CONJUNCTION: ['CONJUNCTION_AND', 'CONJUNCTION_OR'],
  CONSTANT: ['VALUE_CONSTANT'],
  FUNCTION: ['FUNCTION'],
  LAMBDA: ['LAMBDA'],
  OPERATOR: [
    'ARRAY_CONSTRUCTOR',
    'ARRAY_EXTRACT',
    'ARRAY_SLICE',
    'COMPARE_IN',
    'COMPARE_NOT_IN',
    'GROUPING_FUNCTION',
    'OPERATOR_COALESCE',
    'OPERATOR_IS_NULL',
    'OPERATOR_IS_NOT_NULL',
    'OPERATOR_NOT',
    'OPERATOR_TRY',
    'OPERATOR_UNPACK',
    'STRUCT_EXTRACT',
  ],
  PARAMETER: ['VALUE_PARAMETER'],
  POSITIONAL_REFERENCE: ['POSITIONAL_REFERENCE'],
  STAR: ['STAR'],
  SUBQUERY: ['SUBQUERY'],
  WINDOW: [
    'WINDOW_AGGREGATE',
    'WINDOW_ROW_NUMBER',
    'WINDOW_RANK',
    'WINDOW_RANK_DENSE',
    'WINDOW_PERCENT_RANK',
    'WINDOW_CUME_DIST',
    'WINDOW_NTILE',
    'WINDOW_LEAD',
    'WINDOW_LAG',
    'WINDOW_FIRST_VALUE',
    'WINDOW_LAST_VALUE',
    'WINDOW_NTH_VALUE',
    'WINDOW_FILL',
  ],
};

/**
 * True when an expression node with this `class` and `type` is allowed.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function isAllowedExpression(nodeClass: string, nodeType: unknown): boolean {
  return Object.hasOwn(expressionKinds, nodeClass) && expressionKinds[nodeClass].includes(nodeType as string);
}

/**
 * Query nodes: SELECT, set operations, recursive CTEs.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const queryNodeTypes: ReadonlySet<string> = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE']);

/**
 * Table references (`from_table` and below). EXPRESSION_LIST is a VALUES list; SHOW_REF is DESCRIBE.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const tableRefTypes: ReadonlySet<string> = new Set([
  'BASE_TABLE',
  'JOIN',
  'SUBQUERY',
  'TABLE_FUNCTION',
  'EMPTY',
  'EXPRESSION_LIST',
  'PIVOT',
  'SHOW_REF',
]);

/**
 * Result modifiers and ORDER BY terms.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const modifierTypes: ReadonlySet<string> = new Set([
  'ORDER_MODIFIER',
  'LIMIT_MODIFIER',
  'LIMIT_PERCENT_MODIFIER',
  'DISTINCT_MODIFIER',
  'ORDER_DEFAULT',
  'ASCENDING',
  'DESCENDING',
]);

/**
 * Key sets (sorted, comma-joined) of the untyped helper objects in the tree whose children are
 * walked: CASE branches, `{key, value}` pairs (REPLACE/RENAME lists), qualified column names,
 * PIVOT entries, samples.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const helperShapes: ReadonlySet<string> = new Set([
  'then_expr,when_expr',
  'key,value',
  'catalog,column,schema,table',
  'entries,pivot_enum,pivot_expressions,unpivot_names',
  'alias,star_expr,values',
  'is_percentage,method,sample_size,seed',
]);

/**
 * Key sets of pure data objects (constant values, logical types) that hold no expressions.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const dataShapes: ReadonlySet<string> = new Set(['is_null,type,value', 'is_null,type', 'id,type_info']);

/**
 * Table functions allowed in FROM. VALUES lists are EXPRESSION_LIST refs, not functions.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const allowedTableFunctions: ReadonlySet<string> = new Set([
  'generate_series',
  'range',
  'unnest',
  'repeat',
  'from_json',
]);

/**
 * Functions the parser itself writes with the `main` schema (struct/list/map literals, TRIM,
 * SUBSTRING, EXTRACT, AT TIME ZONE, LIKE … ESCAPE, list comprehensions). A user writing
 * `main.<one of these>` gets the same built-in, so these are the only schema-qualified calls allowed.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const parserQualifiedFunctions: ReadonlySet<string> = new Set([
  'struct_pack',
  'struct_extract',
  'list_value',
  'map',
  'row',
  'date_part',
  'position',
  'substring',
  'trim',
  'ltrim',
  'rtrim',
  'overlay',
  'timezone',
  'list_apply',
  'list_filter',
  'like_escape',
  'not_like_escape',
  'ilike_escape',
  'not_ilike_escape',
]);
