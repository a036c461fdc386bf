/**
 * Opens the document and object stores named by the store settings (composition helper for bins).
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md
 * § Deployment settings (DOCDB_URI, OBJSTORE_*).
 */
import { join } from 'node:path';
import type { DocumentStoreSettings, ObjectStoreSettings } from '../../config/store-settings.ts';
import type { DocumentStore } from '../../ports/document-store.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import { createFsObjectStore } from '../fs-objects/fs-object-store.ts';
import { createS3ObjectStore } from '../s3/s3-object-store.ts';
import { openSqliteDocumentStore } from '../sqlite/sqlite-document-store.ts';

/**
 * Opens the document store: the embedded SQLite file, or MongoDB (connects before returning).
 * @throws PlatformError `invalid_config` or `store_unreachable` from the MongoDB adapter; the engine's
 *   error when the SQLite file cannot be opened
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*).
 */
export async function openDocumentStore(settings: DocumentStoreSettings): Promise<DocumentStore> {
  if (settings.kind === 'sqlite') return openSqliteDocumentStore({ path: settings.path });
  // Loaded only when used: embedded installs never pay for the MongoDB driver.
  const { openMongoDocumentStore } = await import('../mongo/mongo-document-store.ts');
  return openMongoDocumentStore({ uri: settings.uri });
}

/**
 * Opens the object store: a `file://` endpoint keeps objects under `<root>/<bucket>/<prefix>`;
 * otherwise S3 (or an S3-compatible endpoint) on `bucket` under `prefix`. Nothing connects until the first call.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*).
 */
export function openObjectStore(settings: ObjectStoreSettings): ObjectStore {
  if (settings.kind === 'fs') {
    return createFsObjectStore({ root: join(settings.root, settings.bucket, settings.prefix) });
  }
  return createS3ObjectStore(settings);
}
