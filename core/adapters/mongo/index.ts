/**
 * MongoDB document store (public edge of `core/adapters/mongo`).
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (DocumentStore).
 */
export { openMongoDocumentStore, databaseInUri, type MongoDocumentStoreOptions } from './mongo-document-store.ts';
export { redactMongoUri } from './mongo-errors.ts';
