/**
 * Embedded SQLite document store (public edge of `core/adapters/sqlite`).
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (DocumentStore).
 */
export {
  openSqliteDocumentStore,
  SQLITE_BUSY_TIMEOUT_MS,
  type SqliteDocumentStoreOptions,
} from './sqlite-document-store.ts';
