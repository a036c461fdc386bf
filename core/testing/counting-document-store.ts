/**
 * A DocumentStore wrapper that counts reads (findOne, find, countDocuments) per collection and passes every call
 * through: the streams' tests and scripts/bench-streams measure how many reads a reader costs.
 *
 * Source: docs/architecture.md § Life of a turn (4. After the worker).
 */
import type { BaseDocument, DocumentCollection, DocumentStore, VersionedUpsert } from '../ports/document-store.ts';

/** The wrapped store and its read counts. */
export interface CountingDocumentStore extends DocumentStore {
  /** Reads so far, in all. */
  reads(): number;
  /** Reads so far of collection `name`. */
  readsOf(name: string): number;
  /** Sets every count back to 0. */
  reset(): void;
}

/** Counts the reads made through the returned store; the data is `inner`'s. */
export function countingDocumentStore(inner: DocumentStore): CountingDocumentStore {
  const counts = new Map<string, number>();
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  return {
    collection<T extends BaseDocument>(name: string): DocumentCollection<T> {
      const target = inner.collection<T>(name);
      return {
        insertOne: (doc) => target.insertOne(doc),
        findOne: (filter) => {
          count(name);
          return target.findOne(filter);
        },
        find: (filter, options) => {
          count(name);
          return target.find(filter, options);
        },
        countDocuments: (filter) => {
          count(name);
          return target.countDocuments(filter);
        },
        updateOne: (filter, update, options) =>
          target.updateOne(filter, update as VersionedUpsert, options as { upsert: boolean }),
        deleteOne: (filter) => target.deleteOne(filter),
        deleteMany: (filter) => target.deleteMany(filter),
        createIndex: (keys, options) => target.createIndex(keys, options),
      };
    },
    close: () => inner.close(),
    reads: () => [...counts.values()].reduce((a, b) => a + b, 0),
    readsOf: (name) => counts.get(name) ?? 0,
    reset: () => counts.clear(),
  };
}
