/**
 * In-memory {@link ObjectStore} fake for unit tests. It follows the embedded filesystem store's key
 * rules (`invalid_key`, `key_conflict` when a key would be both an object and a folder) so unit tests
 * catch what the single-machine install would refuse. Bytes are copied in and out.
 *
 * Source: docs/architecture.md § Ports and adapters (fakes in core/testing).
 */
import type { ObjectStore } from '../ports/object-store.ts';
import { compareKeys, keyConflict, objectKeySegments } from '../adapters/fs-objects/object-key.ts';

/** The fake's extra surface for tests. */
export interface MemoryObjectStore extends ObjectStore {
  /** Number of `put` calls so far (e.g. to assert a write happened once). */
  readonly putCount: number;
}

/** A fresh, empty in-memory object store. */
export function createMemoryObjectStore(): MemoryObjectStore {
  const objects = new Map<string, Uint8Array>();
  let putCount = 0;
  return {
    get putCount() {
      return putCount;
    },
    async put(key, body) {
      const segments = objectKeySegments(key);
      for (let i = 1; i < segments.length; i++) {
        if (objects.has(segments.slice(0, i).join('/'))) throw keyConflict(key);
      }
      for (const existing of objects.keys()) if (existing.startsWith(`${key}/`)) throw keyConflict(key);
      objects.set(key, body.slice());
      putCount++;
    },
    async get(key) {
      objectKeySegments(key);
      return objects.get(key)?.slice() ?? null;
    },
    async head(key) {
      objectKeySegments(key);
      const body = objects.get(key);
      return body === undefined ? null : { size: body.length };
    },
    async delete(key) {
      objectKeySegments(key);
      objects.delete(key);
    },
    async list(prefix) {
      return [...objects.keys()].filter((key) => key.startsWith(prefix)).sort(compareKeys);
    },
  };
}
