/**
 * A collection as the document store's own tests and the boot census's tests write it: documents of any shape, with
 * or without a `schemaVersion` (they test the store itself, or a document written around the platform). Product code
 * never takes this way round: the port's writes take only versioned documents (core/ports/document-store.ts
 * `Versioned`).
 */
import type { BaseDocument, DocumentCollection, Filter, Update } from '../ports/document-store.ts';

/** {@link DocumentCollection} whose writes take documents without a `schemaVersion`. */
export type AnyShapeCollection<T extends BaseDocument> = Omit<DocumentCollection<T>, 'insertOne' | 'updateOne'> & {
  insertOne(doc: T): Promise<void>;
  updateOne(
    filter: Filter,
    update: Update,
    options?: { upsert?: boolean },
  ): Promise<{ matched: number; upserted: boolean }>;
};

/** `collection`, typed to write documents of any shape (tests only). */
export function anyShape<T extends BaseDocument>(collection: DocumentCollection<T>): AnyShapeCollection<T> {
  return collection as AnyShapeCollection<T>;
}
