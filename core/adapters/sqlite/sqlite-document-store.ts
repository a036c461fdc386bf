/**
 * The embedded {@link DocumentStore}: one SQLite file (WAL mode), one table per collection, filters
 * evaluated with mingo. Several processes may open the same file (the API and semantic-mcp do).
 *
 * Source: docs/architecture.md § Processes (DOCDB_URI=sqlite:/data/docdb.sqlite); § Ports, adapters, contracts.
 */
import type { BaseDocument, DocumentCollection, DocumentStore } from '../../ports/document-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { createInsertBatcher } from './insert-batch.ts';
import { SqliteCollection, type SqliteCollectionContext } from './sqlite-collection.ts';
import { openSqlDriver, SQLITE_BUSY_TIMEOUT_MS } from './sqlite-driver.ts';
import { INDEX_TABLE_DDL } from './sqlite-indexes.ts';
import { tableFor } from './sqlite-sql.ts';

/** Options of {@link openSqliteDocumentStore}. */
export interface SqliteDocumentStoreOptions {
  /** File path of the database, created when missing (its directory must exist). */
  path: string;
  /** Clock for TTL expiry; default `() => new Date()`. Tests inject one to move time. */
  now?: () => Date;
  /** Minimum time between two TTL purges of one collection by this instance, in ms; default 60 000. */
  purgeIntervalMs?: number;
  /** How long a call waits for another connection's write lock, in ms; default {@link SQLITE_BUSY_TIMEOUT_MS} (5000).
   */
  busyTimeoutMs?: number;
}

export { SQLITE_BUSY_TIMEOUT_MS };

/**
 * Opens the SQLite document store at `options.path` with `node:sqlite` on Node or `bun:sqlite` on Bun.
 *
 * Semantics: MongoDB filters via mingo (top-level `_id` and string equalities are pushed down to SQL
 * first); Dates stored as `{"$date": iso}` and revived; unique indexes are SQLite UNIQUE expression
 * indexes (missing and null count as one value, arrays compare whole); TTL-expired documents are hidden
 * from every read and write at once and purged from the file at most once per `purgeIntervalMs`.
 * Updates and deletes run read-modify-write inside `BEGIN IMMEDIATE`; each call is synchronous inside,
 * so a call never holds a lock across an `await`. A write that finds another connection (another process) holding
 * the write lock does not wait inside SQLite, which would stop this process's event loop: it is tried again after a
 * short timer, for up to `busyTimeoutMs` (sqlite-driver.ts `writeWithoutBlocking`).
 * Documents hold JSON values and Dates only.
 *
 * @returns the store; `close()` closes the connection, after which calls fail with `store_closed`
 * @throws the engine's error when the file cannot be opened
 */
export async function openSqliteDocumentStore(options: SqliteDocumentStoreOptions): Promise<DocumentStore> {
  const busyTimeoutMs = options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS;
  const driver = await openSqlDriver(options.path, { busyTimeoutMs });
  try {
    driver.exec('PRAGMA journal_mode = WAL');
    driver.exec('PRAGMA synchronous = NORMAL');
    driver.exec(INDEX_TABLE_DDL);
  } catch (error) {
    driver.close();
    throw error;
  }
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new PlatformError('store_closed', 'The document store is closed.');
  };
  const ctx: SqliteCollectionContext = {
    driver,
    now: options.now ?? (() => new Date()),
    assertOpen,
    lastPurgeMs: new Map(),
    purgeIntervalMs: options.purgeIntervalMs ?? 60_000,
    indexCache: { generation: -1, byCollection: new Map() },
    busyTimeoutMs,
    inserts: createInsertBatcher(driver, busyTimeoutMs, assertOpen),
  };
  const created = new Set<string>();
  return {
    collection<T extends BaseDocument>(name: string): DocumentCollection<T> {
      ctx.assertOpen();
      if (name.length === 0) throw new PlatformError('invalid_collection', 'A collection name cannot be empty.');
      if (!created.has(name)) {
        driver.exec(`CREATE TABLE IF NOT EXISTS ${tableFor(name)} (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
        created.add(name);
      }
      return new SqliteCollection<T>(name, ctx);
    },
    async close() {
      if (closed) return;
      closed = true;
      driver.close();
    },
  };
}
