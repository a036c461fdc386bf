/**
 * SQL text for the SQLite document store: identifiers, the equality push-down that narrows candidate
 * rows before mingo decides, and the expression indexes behind `createIndex`.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore, embedded SQLite).
 */
import type { Filter } from '../../ports/document-store.ts';
import { quoteIdentifier, quoteLiteral } from '../../ports/sql-text.ts';
import { jsonPath } from './document-codec.ts';
import type { IndexSpec } from './document-semantics.ts';
import type { SqlValue } from './sqlite-driver.ts';

/** The quoted table holding collection `name` (prefixed so it never clashes with `_indexes`). */
export function tableFor(name: string): string {
  return quoteIdentifier(`c_${name}`);
}

/**
 * A scalar subquery giving the generation of the declared indexes: how many rows `_indexes` holds. Rows are only ever
 * added (sqlite-indexes.ts `declareIndex`: a declaration under an existing name with other options is refused; nothing
 * updates or deletes one), so every declaration by any connection, in any process, makes it grow, and an unchanged
 * generation means unchanged specs. A read selects it beside its documents (`SELECT doc, … AS g`): the specs that
 * judge them are then those of the same snapshot, found without a statement of their own (docs/decisions.md D24 § 3;
 * it replaced a `PRAGMA data_version` before every call, which any commit of another connection changed). An index
 * removal, should the port ever gain one, must keep this true (a removed index's row kept as a tombstone, say).
 */
export const INDEX_GENERATION = '(SELECT count(*) FROM _indexes)';

/** A WHERE clause (without the keyword) and its parameters. */
export interface SqlCondition {
  where: string;
  params: SqlValue[];
}

const SIMPLE_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Conditions SQL can check before mingo sees a row: the top-level `_id` equality / `$in` on strings; on simple
 * top-level field names, string and number equalities (`f: v`, `f: {$eq: v}`) and `$in` lists of strings only (the
 * Sessions page's `agentId: {$in: …}`, `depth: 0`). The result is a superset of the matches (a field holding an
 * array is kept, since `{ tags: 'a' }` matches `tags: ['a', 'b']`; SQLite reads JSON true as 1, so `{f: 1}` keeps
 * `f: true`); mingo then evaluates the whole filter, so correctness never depends on the push-down. Each field
 * condition is `json_extract(doc, path) … OR json_type(doc, path) = 'array'`: the value and type expression indexes
 * of a declared index on the field (indexDdl) serve both sides.
 */
export function pushDown(filter: Filter): SqlCondition {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  for (const [field, condition] of Object.entries(filter)) {
    const value = equalityValue(condition);
    if (field === '_id') {
      const ids = idList(condition);
      if (typeof value === 'string') {
        clauses.push('_id = ?');
        params.push(value);
      } else if (ids !== undefined) {
        clauses.push(ids.length === 0 ? '0' : `_id IN (${ids.map(() => '?').join(', ')})`);
        params.push(...ids);
      }
      continue;
    }
    if (!SIMPLE_FIELD.test(field)) continue;
    const path = `'$."${field}"'`;
    const orArray = `OR json_type(doc, ${path}) = 'array'`;
    const list = idList(condition);
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
      clauses.push(`(json_extract(doc, ${path}) = ? ${orArray})`);
      params.push(value);
    } else if (list !== undefined) {
      const within = list.length === 0 ? '0' : `json_extract(doc, ${path}) IN (${list.map(() => '?').join(', ')})`;
      clauses.push(`(${within} ${orArray})`);
      params.push(...list);
    }
  }
  return { where: clauses.length === 0 ? '1' : clauses.join(' AND '), params };
}

/**
 * SQL for reading the candidates of `where` ordered by a Date field, so a sorted, limited find decodes only the
 * first rows: `select` returns `doc`, `rowid`, `k` (the field's ISO time) and `g` (the index generation,
 * {@link INDEX_GENERATION}) in `direction` order; `guard` returns a row when some candidate's field is not a Date
 * of years 0–9999 (missing, null, a number, a string, an array…), whose order SQL would not give as MongoDB does: the
 * find then takes the full path. Undefined for a field that is not a simple top-level name.
 */
export function dateOrderSql(
  table: string,
  where: string,
  field: string,
  direction: 1 | -1,
): { select: string; guard: string } | undefined {
  if (!SIMPLE_FIELD.test(field)) return undefined;
  const path = `'$."${field}"."$date"'`;
  const key = `json_extract(doc, ${path})`;
  const isDate = `json_type(doc, '$."${field}"') = 'object' AND json_type(doc, ${path}) = 'text' ` +
    `AND length(${key}) = 24`;
  return {
    select: `SELECT doc, rowid AS r, ${key} AS k, ${INDEX_GENERATION} AS g FROM ${table} WHERE ${where} ` +
      `ORDER BY k ${direction === 1 ? 'ASC' : 'DESC'}`,
    guard: `SELECT 1 FROM ${table} WHERE (${where}) AND (${isDate}) IS NOT 1 LIMIT 1`,
  };
}

function equalityValue(condition: unknown): unknown {
  if (typeof condition === 'string' || typeof condition === 'number') return condition;
  if (typeof condition === 'object' && condition !== null && !Array.isArray(condition)) {
    const keys = Object.keys(condition);
    if (keys.length === 1 && keys[0] === '$eq') return (condition as { $eq: unknown }).$eq;
  }
  return undefined;
}

function idList(condition: unknown): string[] | undefined {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return undefined;
  const keys = Object.keys(condition);
  const list = (condition as { $in?: unknown }).$in;
  if (keys.length !== 1 || !Array.isArray(list) || !list.every((v) => typeof v === 'string')) return undefined;
  return list as string[];
}

/**
 * DDL for the SQLite indexes behind one declared index on collection `collection`:
 * an expression index on the first key's value and its JSON type (used by {@link pushDown}; one pair per field), and
 * for
 * a unique index a UNIQUE expression index over every key where a missing or null value counts as one
 * value (x'00'), as MongoDB does; for a TTL index an index on the stored ISO time (used by the purge).
 * @returns the statements, or undefined when a key cannot be written as a JSON path (holds `"`)
 */
export function indexDdl(collection: string, spec: IndexSpec): string[] | undefined {
  const fields = Object.keys(spec.keys);
  const paths = fields.map(jsonPath);
  if (paths.some((p) => p === undefined)) return undefined;
  const table = tableFor(collection);
  const base = `x_${collection}_${spec.name}`;
  const statements: string[] = [];
  if (SIMPLE_FIELD.test(fields[0])) {
    const path = `'$."${fields[0]}"'`;
    // Named by the field, not the declared index: two declared indexes on one first field (the sessions' agentId)
    // share these two instead of each writing its own copy on every insert and update.
    const field = `x_${collection}_field_${fields[0]}`;
    statements.push(
      `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${field}_v`)} ON ${table} (json_extract(doc, ${path}))`,
      `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${field}_t`)} ON ${table} (json_type(doc, ${path}))`,
    );
  }
  if (spec.expireAfterSeconds !== undefined) {
    const datePath = quoteLiteral(`${paths[0] as string}."$date"`);
    statements.push(
      `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${base}_e`)} ON ${table} (json_extract(doc, ${datePath}))`,
    );
  }
  if (spec.unique) {
    const columns = paths.map((p) => `COALESCE(json_extract(doc, ${quoteLiteral(p as string)}), x'00')`).join(', ');
    statements.push(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdentifier(`${base}_u`)} ON ${table} (${columns})`);
  }
  return statements;
}

/**
 * A DELETE for the documents a TTL index expires at `cutoffIso` (= now − expireAfterSeconds):
 * those whose field holds a Date (`{"$date": iso}`) at or before the cutoff. ISO 8601 strings from
 * `toISOString` compare in time order for years 0–9999. Arrays of Dates are left to the read filter.
 */
export function ttlPurgeSql(collection: string, spec: IndexSpec): string | undefined {
  const path = jsonPath(Object.keys(spec.keys)[0]);
  if (path === undefined) return undefined;
  return `DELETE FROM ${tableFor(collection)} WHERE json_extract(doc, ${quoteLiteral(`${path}."$date"`)}) <= ?`;
}
