/**
 * MongoDB document store (public edge of `core/adapters/mongo`).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore).
 */
export { databaseInUri, type MongoDocumentStoreOptions, openMongoDocumentStore } from './mongo-document-store.ts';
export { redactMongoUri } from './mongo-errors.ts';
