/**
 * MongoDB semantics shared by the embedded document stores (SQLite adapter and the in-memory fake):
 * filter matching, find options, update operators and upsert seeds through `mingo`, TTL expiry and
 * unique-index keys. Pure functions: no I/O, no clock (the time comes in as an argument).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore).
 */
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import { update as mingoUpdate } from 'mingo/updater';
import { PlatformError } from '../../ports/platform-error.ts';
import { escapeKeysDeep, unescapeKeysDeep } from '../document-keys.ts';
import type { Filter, FindOptions, Update } from '../../ports/document-store.ts';

/**
 * Built once: mingo's top-level `Query` copies every operator table (query, expression, pipeline,
 * projection, accumulator, window: several hundred entries) into a new context on every
 * construction, which was most of a document read's CPU time. Filters here only need the query
 * operators, so each query starts from this small context instead.
 */
const queryOptions = { context: Context.init({ query: queryOperators }) };

/** A top-level field name that is neither dotted nor an operator. */
const plainField = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A plain document as the stores hold it. */
export type PlainDocument = Record<string, unknown> & { _id: string };

/** One declared index, as stored in `_indexes` (SQLite) or in memory (fake). */
export interface IndexSpec {
  /** Stable name derived from the keys, e.g. `email_1` or `tenantId_1_at_-1`. */
  name: string;
  keys: Record<string, 1 | -1>;
  unique: boolean;
  /** TTL in seconds; undefined when the index is not a TTL index. */
  expireAfterSeconds?: number;
}

/** The MongoDB-style name of an index on `keys`, e.g. `{ a: 1, b: -1 }` → `a_1_b_-1`. */
export function indexName(keys: Record<string, 1 | -1>): string {
  return Object.entries(keys).map(([field, direction]) => `${field}_${direction}`).join('_');
}

/**
 * A predicate for `filter` with MongoDB query semantics.
 * @throws PlatformError `invalid_filter` when the filter uses an unknown operator or bad shape
 */
export function compileFilter(filter: Filter): (doc: PlainDocument) => boolean {
  const equalities = Object.entries(filter);
  if (equalities.every(([field, value]) => typeof value === 'string' && plainField.test(field))) {
    // The common lookup (`{ tokenHash: h }`, `{ slug, projectId }`): MongoDB's rule for a string
    // equality — the field equals it, or is an array holding it — without building a mingo query.
    return (doc) =>
      equalities.every(([field, value]) => {
        const held = doc[field];
        return held === value || (Array.isArray(held) && held.includes(value));
      });
  }
  try {
    const query = new Query(filter, queryOptions);
    return (doc) => query.test(doc);
  } catch (error) {
    throw new PlatformError('invalid_filter', `The filter is not a valid MongoDB query: ${(error as Error).message}`, {
      status: 400,
      cause: error,
    });
  }
}

/**
 * Refuses a `skip` or `limit` that is not a whole number ≥ 0 (NaN, negative, fractional, infinite), so a
 * bad count is never read as "no limit". A limit of 0 means no limit, as in MongoDB.
 * @throws PlatformError `invalid_find_options` (400) naming the option
 */
export function checkFindOptions(options: FindOptions): void {
  for (const name of ['skip', 'limit'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new PlatformError(
        'invalid_find_options',
        `The find option ${name} must be a whole number ≥ 0 (got ${String(value)}).`,
        { status: 400 },
      );
    }
  }
}

/**
 * Applies `sort` (multi-key, in key order), `skip` and `limit` to already-matching documents.
 * @throws PlatformError `invalid_find_options` (400) from {@link checkFindOptions}
 */
export function applyFindOptions<T extends PlainDocument>(docs: T[], options: FindOptions = {}): T[] {
  checkFindOptions(options);
  const { sort } = options;
  if (sort === undefined || Object.keys(sort).length === 0) {
    // Insertion order kept: skip and limit are a slice (no cursor needed).
    const start = options.skip ?? 0;
    return options.limit !== undefined && options.limit > 0
      ? docs.slice(start, start + options.limit)
      : docs.slice(start);
  }
  let cursor = new Query({}, queryOptions).find(docs).sort(sort);
  if (options.skip !== undefined && options.skip > 0) cursor = cursor.skip(options.skip);
  if (options.limit !== undefined && options.limit > 0) cursor = cursor.limit(options.limit);
  return cursor.all() as T[];
}

const TOP_LEVEL_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A `$set` and `$unset` of top-level fields only (the platform's usual update: a status, a settle), applied to a
 * shallow copy of `doc`: mingo's result without escaping, copying and walking the whole document (a webhook claim's
 * payload, say). Untouched fields are shared with `doc`, which the caller only encodes. Undefined when the update needs
 * mingo: `$inc`, a dotted or `$` path, `__proto__`, one field both set and unset.
 */
function topLevelUpdate(doc: PlainDocument, update: Update): PlainDocument | undefined {
  if (update.$inc !== undefined) return undefined;
  const set = Object.keys(update.$set ?? {});
  const unset = Object.keys(update.$unset ?? {});
  const simple = (field: string) => TOP_LEVEL_FIELD.test(field) && field !== '__proto__';
  if (!set.every(simple) || !unset.every(simple) || set.some((field) => unset.includes(field))) return undefined;
  if (set.includes('_id') && update.$set?._id !== doc._id) return undefined;
  if (unset.includes('_id')) return undefined;
  const next: PlainDocument = { ...doc };
  for (const field of set) next[field] = structuredClone(update.$set?.[field]);
  for (const field of unset) delete next[field];
  return next;
}

/**
 * Applies `$set`, `$unset` and `$inc` (dotted paths allowed) to a copy of `doc`.
 * @returns the updated copy
 * @throws PlatformError `invalid_update` when the update would change `_id`, or `$inc` is not numeric
 */
export function applyUpdate(doc: PlainDocument, update: Update): PlainDocument {
  const shallow = topLevelUpdate(doc, update);
  if (shallow !== undefined) return shallow;
  // mingo runs on the stored form (keys escaped: ../document-keys.ts), so a caller's `__proto__`, `$`-key or dotted
  // key in a value is data to it, never lost or read as a path; update paths are the platform's own field names.
  const next = escapeKeysDeep(doc) as PlainDocument;
  if ('_id' in (update.$set ?? {}) && update.$set?._id !== doc._id) {
    throw new PlatformError('invalid_update', 'An update cannot change _id.', { status: 400 });
  }
  if ('_id' in (update.$unset ?? {})) {
    throw new PlatformError('invalid_update', 'An update cannot remove _id.', { status: 400 });
  }
  const modifier: Record<string, Record<string, unknown>> = {};
  if (update.$set !== undefined) {
    modifier.$set = Object.fromEntries(
      Object.entries(update.$set).map(([path, value]) => [path, escapeKeysDeep(structuredClone(value))]),
    );
  }
  if (update.$unset !== undefined) modifier.$unset = Object.fromEntries(Object.keys(update.$unset).map((k) => [k, '']));
  if (update.$inc !== undefined) modifier.$inc = update.$inc;
  if (Object.keys(modifier).length === 0) return structuredClone(doc);
  try {
    mingoUpdate(next, modifier, undefined, undefined, { queryOptions });
  } catch (error) {
    throw new PlatformError('invalid_update', `The update cannot be applied: ${(error as Error).message}`, {
      status: 400,
      cause: error,
    });
  }
  return unescapeKeysDeep(next) as PlainDocument;
}

/**
 * The document an upsert inserts before applying the update: the equality conditions of `filter`
 * (`field: value`, `field: { $eq: value }`, and those inside `$and`), dotted paths expanded.
 * `_id` is taken from the filter when present, else `newId()`.
 */
export function upsertSeed(filter: Filter, newId: () => string): PlainDocument {
  const seed: Record<string, unknown> = {};
  collectEqualities(filter, seed);
  if (typeof seed._id !== 'string') seed._id = newId();
  return seed as PlainDocument;
}

function collectEqualities(filter: Filter, into: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) collectEqualities(part as Filter, into);
    } else if (!key.startsWith('$')) {
      if (isOperatorObject(value)) {
        if ('$eq' in value) setPath(into, key, structuredClone(value.$eq));
      } else {
        setPath(into, key, structuredClone(value));
      }
    }
  }
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const child = node[segment];
    if (typeof child !== 'object' || child === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[segments[segments.length - 1]] = value;
}

/** The value at a dotted `path` of `doc` (objects only), or undefined when missing. */
export function valueAtPath(doc: Record<string, unknown>, path: string): unknown {
  let node: unknown = doc;
  for (const segment of path.split('.')) {
    if (typeof node !== 'object' || node === null || node instanceof Date) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * True when a TTL index expires `doc` at `now`: its indexed field holds a Date (or an array of Dates,
 * the earliest counts) and `date + expireAfterSeconds ≤ now`. Documents without a Date never expire.
 */
export function isExpired(doc: PlainDocument, indexes: IndexSpec[], now: Date): boolean {
  for (const index of indexes) {
    if (index.expireAfterSeconds === undefined) continue;
    const field = Object.keys(index.keys)[0];
    const value = valueAtPath(doc, field);
    const dates = (Array.isArray(value) ? value : [value]).filter((v): v is Date => v instanceof Date);
    if (dates.length === 0) continue;
    const earliest = Math.min(...dates.map((d) => d.getTime()));
    if (earliest + index.expireAfterSeconds * 1000 <= now.getTime()) return true;
  }
  return false;
}

/**
 * The key a unique index compares: the JSON of each indexed field's value, a missing field counting as
 * null (as MongoDB does: only one document may lack the field). Arrays compare as whole values.
 */
export function uniqueKey(doc: PlainDocument, keys: Record<string, 1 | -1>): string {
  return JSON.stringify(Object.keys(keys).map((field) => valueAtPath(doc, field) ?? null));
}

/** A fresh string `_id` for upserts whose filter names none (32 hex characters). */
export function newDocumentId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '');
}

/** PlatformError `duplicate_key` for collection `name`. */
export function duplicateKeyError(name: string, cause?: unknown): PlatformError {
  return new PlatformError('duplicate_key', `A document with the same _id or unique index key exists in ${name}.`, {
    status: 409,
    cause,
  });
}
