/**
 * Embedded SQLite document store (public edge of `core/adapters/sqlite`).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore).
 */
export {
  openSqliteDocumentStore,
  SQLITE_BUSY_TIMEOUT_MS,
  type SqliteDocumentStoreOptions,
} from './sqlite-document-store.ts';
