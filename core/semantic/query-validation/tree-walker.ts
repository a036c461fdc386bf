/**
 * Walks the WHOLE json_serialize_sql tree of one statement. Every object must be a known node:
 * an allowlisted expression, query node, table reference or modifier, a known helper object, or
 * pure data (constant values, logical types). Anything else is rejected (fail closed). CTE names
 * are tracked per query node so base-table names resolve only to the model's tables or CTEs in scope.
 *
 * Source: spec/semantic-query-service.md § Query validation (2, 4–8).
 */
import {
  dataShapes,
  helperShapes,
  isAllowedExpression,
  modifierTypes,
  queryNodeTypes,
  tableRefTypes,
} from './allowlists.ts';
import { rejected, unsupportedConstruct } from './messages.ts';
import {
  checkBaseTable,
  checkColumnRef,
  checkFunctionCall,
  checkShowRef,
  checkTableFunction,
  type ModelTables,
  type TreeNode,
} from './table-refs.ts';

/**
 * What a walk found.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface WalkResult {
  /** Highest `$n` placeholder index (0 when there is none). */
  maxParameter: number;
}

interface WalkState {
  tables: ModelTables;
  parameters: Set<number>;
}

type Scope = ReadonlySet<string>;

/**
 * Validates one serialised statement (`{ node, named_param_map }`).
 * @param statement - one element of json_serialize_sql's `statements`
 * @param tables - the requested model's tables
 * @throws PlatformError `query_rejected` on the first node outside the allowlist
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function walkStatement(statement: unknown, tables: ModelTables): WalkResult {
  const state: WalkState = { tables, parameters: new Set() };
  walk(statement, new Set(), state);
  const maxParameter = Math.max(0, ...state.parameters);
  if (state.parameters.size !== maxParameter) {
    const used = [...state.parameters].sort((a, b) => a - b).map((index) => `$${index}`).join(', ');
    throw rejected(
      `placeholders must be numbered $1 to $${maxParameter} without gaps (the query uses ${used}); renumber them ` +
        `and pass one param per placeholder.`,
    );
  }
  return { maxParameter };
}

function walk(value: unknown, scope: Scope, state: WalkState): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, scope, state);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const node = value as TreeNode;
  if (typeof node.class === 'string') walkExpression(node, scope, state);
  else if (typeof node.type === 'string') walkTyped(node, scope, state);
  else walkUntyped(node, scope, state);
}

function walkChildren(node: TreeNode, scope: Scope, state: WalkState, skip: readonly string[] = []): void {
  for (const [key, child] of Object.entries(node)) {
    if (!skip.includes(key)) walk(child, scope, state);
  }
}

function walkExpression(node: TreeNode, scope: Scope, state: WalkState): void {
  const nodeClass = node.class as string;
  if (!isAllowedExpression(nodeClass, node.type)) throw unsupportedConstruct(`expression ${String(node.type)}`);
  if (nodeClass === 'FUNCTION' || nodeClass === 'WINDOW') checkFunctionCall(node);
  if (nodeClass === 'COLUMN_REF') checkColumnRef(node);
  if (nodeClass === 'PARAMETER') state.parameters.add(parameterIndex(node));
  walkChildren(node, scope, state);
}

/** The placeholder number of a PARAMETER node; named parameters are refused. */
function parameterIndex(node: TreeNode): number {
  const identifier = String(node.identifier);
  if (!/^[1-9][0-9]{0,4}$/.test(identifier)) {
    throw rejected(
      `named parameter "$${identifier}" is not supported; use positional placeholders $1, $2, … with params.`,
    );
  }
  return Number(identifier);
}

function walkTyped(node: TreeNode, scope: Scope, state: WalkState): void {
  const type = node.type as string;
  if (queryNodeTypes.has(type)) return walkQueryNode(node, scope, state);
  if (tableRefTypes.has(type)) {
    if (type === 'BASE_TABLE') checkBaseTable(node, scope, state.tables);
    if (type === 'TABLE_FUNCTION') checkTableFunction(node);
    if (type === 'SHOW_REF') checkShowRef(node);
    return walkChildren(node, scope, state);
  }
  if (modifierTypes.has(type)) return walkChildren(node, scope, state);
  throw unsupportedConstruct(type);
}

function walkUntyped(node: TreeNode, scope: Scope, state: WalkState): void {
  const shape = Object.keys(node).sort().join(',');
  if (dataShapes.has(shape)) return;
  if (shape === 'named_param_map,node') return walk(node.node, scope, state);
  if (helperShapes.has(shape)) return walkChildren(node, scope, state);
  throw unsupportedConstruct(`node with fields ${shape || 'none'}`);
}

/**
 * A query node: its CTEs are walked in order, each seeing the CTEs before it (a recursive CTE also
 * sees itself through its RECURSIVE_CTE_NODE); the body sees them all.
 */
function walkQueryNode(node: TreeNode, outer: Scope, state: WalkState): void {
  let scope = new Set(outer);
  if (node.type === 'RECURSIVE_CTE_NODE') scope.add(String(node.cte_name).toLowerCase());
  for (const entry of cteEntries(node.cte_map)) {
    walk(entry.value.query, scope, state);
    walk(entry.value.key_targets, scope, state);
    scope = new Set(scope).add(entry.key.toLowerCase());
  }
  walkChildren(node, scope, state, ['cte_map']);
}

interface CteEntry {
  key: string;
  value: { query: unknown; key_targets: unknown };
}

const cteValueShape = 'aliases,key_targets,materialized,query';

/** The entries of a `cte_map`, checked for the shape DuckDB writes. */
function cteEntries(cteMap: unknown): CteEntry[] {
  const map = (cteMap as { map?: unknown } | null | undefined)?.map;
  if (cteMap === undefined || cteMap === null) return [];
  if (!Array.isArray(map) || Object.keys(cteMap as object).join(',') !== 'map') throw unsupportedConstruct('CTE list');
  return map.map((entry: unknown) => {
    const candidate = entry as Partial<CteEntry> | null;
    const value = candidate?.value as object | undefined;
    if (typeof candidate?.key !== 'string' || !value || Object.keys(value).sort().join(',') !== cteValueShape) {
      throw unsupportedConstruct('CTE definition');
    }
    return candidate as CteEntry;
  });
}
