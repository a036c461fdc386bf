/**
 * Filesystem object store (public edge of `core/adapters/fs-objects`).
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore).
 */
export { createFsObjectStore, fsObjectStoreRootFromUrl, type FsObjectStoreOptions } from './fs-object-store.ts';
