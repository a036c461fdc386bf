/**
 * Filesystem object store (public edge of `core/adapters/fs-objects`).
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (ObjectStore).
 */
export { createFsObjectStore, fsObjectStoreRootFromUrl, type FsObjectStoreOptions } from './fs-object-store.ts';
