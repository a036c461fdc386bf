/**
 * Filesystem object store (public edge of `core/adapters/fs-objects`).
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore).
 */
export { createFsObjectStore, type FsObjectStoreOptions, fsObjectStoreRootFromUrl } from './fs-object-store.ts';
