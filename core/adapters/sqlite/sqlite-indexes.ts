/**
 * Index bookkeeping of the SQLite document store: declared index specs live in the `_indexes` table
 * (so every process sharing the file sees them), unique indexes are SQLite UNIQUE expression indexes,
 * TTL indexes are enforced by a read filter plus a throttled purge.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore, embedded SQLite).
 */
import type { IndexOptions } from '../../ports/document-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { duplicateKeyError, indexName, type IndexSpec } from './document-semantics.ts';
import { inImmediateTransaction, isUniqueViolation, type SqlDriver } from './sqlite-driver.ts';
import { INDEX_GENERATION, indexDdl, ttlPurgeSql } from './sqlite-sql.ts';

/** DDL of the table holding every collection's index specs. */
export const INDEX_TABLE_DDL =
  'CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, ' +
  'PRIMARY KEY (collection, name))';

/**
 * Index specs per collection as this connection last read them, for index generation `generation` (sqlite-sql.ts
 * `INDEX_GENERATION`: it grows with every declaration, by any connection). A read selects the generation beside its
 * documents, so a declaration made elsewhere is seen by the first read after it, with the specs of the same snapshot,
 * and commits of other connections that declare nothing keep the cache (docs/decisions.md D24 § 3). This connection's
 * own declarations clear it. Specs are only ever added, so specs kept from an earlier generation are a subset of the
 * current ones: enough to choose the TTL indexes of a purge, never to judge a document.
 */
export interface IndexCache {
  generation: number;
  byCollection: Map<string, IndexSpec[]>;
}

/**
 * The index specs of `collection` at index generation `generation`, from `cache` while it holds that generation (else
 * the cache is emptied and the specs read). Give the generation selected by the statement that read the documents the
 * specs will judge (the same snapshot); without one, the current generation is read (one statement).
 */
export function indexSpecsAt(
  driver: SqlDriver,
  cache: IndexCache,
  collection: string,
  generation?: number,
): IndexSpec[] {
  const now = generation ?? Number(driver.prepare(`SELECT ${INDEX_GENERATION} AS g`).get()?.g);
  if (now !== cache.generation) {
    cache.generation = now;
    cache.byCollection.clear();
  }
  let specs = cache.byCollection.get(collection);
  if (specs === undefined) {
    specs = readIndexes(driver, collection);
    cache.byCollection.set(collection, specs);
  }
  return specs;
}

/** Every index declared on `collection`, read fresh (another process may have added one). */
export function readIndexes(driver: SqlDriver, collection: string): IndexSpec[] {
  const rows = driver.prepare('SELECT spec FROM _indexes WHERE collection = ? ORDER BY name').all(collection);
  return rows.map((row) => JSON.parse(String(row.spec)) as IndexSpec);
}

/**
 * Declares an index on `collection`; a second call with the same keys and options does nothing.
 * @throws PlatformError `duplicate_key` when existing documents violate a new unique index;
 *   `index_conflict` when an index on the same keys exists with other options;
 *   `invalid_index` for no keys, a bad direction, a TTL index on several keys, or a field holding `"`
 */
export function declareIndex(
  driver: SqlDriver,
  collection: string,
  index: { keys: Record<string, 1 | -1>; options: IndexOptions },
): void {
  const spec = toSpec(index.keys, index.options);
  const ddl = indexDdl(collection, spec);
  if (ddl === undefined) throw invalidIndex('an indexed field name holds a double quote');
  try {
    inImmediateTransaction(driver, () => {
      const existing = driver.prepare('SELECT spec FROM _indexes WHERE collection = ? AND name = ?').get(
        collection,
        spec.name,
      );
      if (existing !== undefined) {
        if (String(existing.spec) !== JSON.stringify(spec)) throw conflict(spec.name);
        return;
      }
      for (const statement of ddl) driver.exec(statement);
      driver.prepare('INSERT INTO _indexes (collection, name, spec) VALUES (?, ?, ?)').run(
        collection,
        spec.name,
        JSON.stringify(spec),
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateKeyError(collection, error);
    throw error;
  }
}

function toSpec(keys: Record<string, 1 | -1>, options: IndexOptions): IndexSpec {
  const fields = Object.keys(keys);
  if (fields.length === 0) throw invalidIndex('it has no keys');
  if (fields.some((f) => keys[f] !== 1 && keys[f] !== -1)) throw invalidIndex('a direction is not 1 or -1');
  const ttl = options.expireAfterSeconds;
  if (ttl !== undefined && (fields.length !== 1 || !(ttl >= 0))) {
    throw invalidIndex('a TTL index needs exactly one key and expireAfterSeconds ≥ 0');
  }
  const spec: IndexSpec = { name: indexName(keys), keys: { ...keys }, unique: options.unique === true };
  if (ttl !== undefined) spec.expireAfterSeconds = ttl;
  return spec;
}

function invalidIndex(reason: string): PlatformError {
  return new PlatformError('invalid_index', `The index cannot be created: ${reason}.`, { status: 400 });
}

function conflict(name: string): PlatformError {
  return new PlatformError('index_conflict', `An index ${name} exists with other options; drop it first.`, {
    status: 409,
  });
}

/**
 * Deletes the documents the TTL indexes in `specs` expire at `now` (Dates stored as `{"$date"}`).
 * @returns how many documents were deleted
 */
export function purgeExpired(driver: SqlDriver, collection: string, specs: IndexSpec[], now: Date): number {
  let deleted = 0;
  for (const spec of specs) {
    if (spec.expireAfterSeconds === undefined) continue;
    const sql = ttlPurgeSql(collection, spec);
    if (sql === undefined) continue;
    const cutoff = new Date(now.getTime() - spec.expireAfterSeconds * 1000).toISOString();
    deleted += driver.prepare(sql).run(cutoff).changes;
  }
  return deleted;
}
