/**
 * Opens the document and object stores named by the store settings (composition helper for bins).
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts.
 */
import { join } from 'node:path';
import type { DocumentStoreSettings, ObjectStoreSettings } from '../../config/store-settings.ts';
import type { DocumentStore } from '../../ports/document-store.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { createFsObjectStore } from '../fs-objects/fs-object-store.ts';
import { openSqliteDocumentStore } from '../sqlite/sqlite-document-store.ts';

/**
 * Opens the document store.
 * @throws PlatformError `not_supported` for MongoDB until its adapter lands (see README)
 */
export async function openDocumentStore(settings: DocumentStoreSettings): Promise<DocumentStore> {
  if (settings.kind === 'sqlite') return openSqliteDocumentStore({ path: settings.path });
  throw new PlatformError('not_supported', 'DOCDB_URI: the MongoDB adapter is not part of this build yet; use sqlite:<path>.');
}

/**
 * Opens the object store; a `file://` endpoint keeps objects under `<root>/<bucket>/<prefix>`.
 * @throws PlatformError `not_supported` for S3 until its adapter lands (see README)
 */
export function openObjectStore(settings: ObjectStoreSettings): ObjectStore {
  if (settings.kind === 'fs') return createFsObjectStore({ root: join(settings.root, settings.bucket, settings.prefix) });
  throw new PlatformError('not_supported', 'OBJSTORE_ENDPOINT: the S3 adapter is not part of this build yet; use file:///<directory>.');
}
