/**
 * S3 object store (public edge of `core/adapters/s3`).
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore).
 */
export { createS3ObjectStore, normalisePrefix, s3ClientConfig, type S3ObjectStoreSettings } from './s3-object-store.ts';
