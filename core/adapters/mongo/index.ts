/**
 * MongoDB document store (public edge of `core/adapters/mongo`).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore).
 */
export { openMongoDocumentStore, databaseInUri, type MongoDocumentStoreOptions } from './mongo-document-store.ts';
export { redactMongoUri } from './mongo-errors.ts';
