/**
 * Setting a document aside that the boot census refuses (without a usable schemaVersion, or at a version this
 * release cannot read): `cairn data-updates quarantine <collection> <id>` copies it whole into
 * {@link QUARANTINE_COLLECTION} and then removes it from its collection, so the platform starts again and nothing is
 * lost (an operator reads it there, corrects it and writes it back, or deletes it). No version is guessed.
 *
 * Two writes, each idempotent: a run killed between them left a copy, and the next run finds the copy (a duplicate
 * key) and removes the original. Source: spec/platform-service.md § Errors (documents without a schemaVersion: find
 * and correct them; no version is guessed); issue "Hardening, round 3" § 1.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { ReleaseData, StoredDocument } from './model.ts';

/** Where set-aside documents are kept: `{_id: "<collection>/<id>", collection, document, quarantinedAt}`. */
export const QUARANTINE_COLLECTION = 'quarantined_documents';
/** The version of {@link QUARANTINE_COLLECTION}'s own documents. */
export const quarantineSchemaVersion = 1 as const;

/** One set-aside document. */
export interface QuarantinedDocument {
  _id: string;
  schemaVersion: typeof quarantineSchemaVersion;
  collection: string;
  /** The document as it was found, its `_id` included. */
  document: StoredDocument;
  quarantinedAt: Date;
}

/** The command an operator runs to set one refused document aside (named by the refusal line). */
export const quarantineCommand = (collection: string, id: string): string =>
  `cairn data-updates quarantine ${collection} ${JSON.stringify(id)}`;

/**
 * Sets document `id` of `collection` aside when the census refuses it.
 * @returns `moved`: it was set aside by this run (or a run killed after the copy); `absent`: no such document
 * @throws PlatformError `unknown_collection` (400) for a collection the release does not store;
 *   `document_readable` (409) for a document at a version the release reads (nothing to repair)
 */
export async function quarantineDocument(
  deps: { docs: DocumentStore; clock: Clock },
  release: ReleaseData,
  target: { collection: string; id: string },
): Promise<'moved' | 'absent'> {
  const versions = release.collections[target.collection];
  if (versions === undefined || target.collection === QUARANTINE_COLLECTION) {
    throw new PlatformError(
      'unknown_collection',
      `${JSON.stringify(target.collection.slice(0, 80))} is not a collection this release stores; name the ` +
        'collection of the refusal line',
      { status: 400 },
    );
  }
  const items = deps.docs.collection<StoredDocument>(target.collection);
  const found = await items.findOne({ _id: target.id });
  if (found === null) return 'absent';
  const version = found.schemaVersion;
  const readable = typeof version === 'number' && Number.isInteger(version) && version >= versions.baseline &&
    version <= versions.current;
  if (readable) {
    throw new PlatformError(
      'document_readable',
      `Document ${target.id} of ${target.collection} is at version ${version}, which this release reads; ` +
        'nothing to set aside',
      { status: 409 },
    );
  }
  const kept = deps.docs.collection<QuarantinedDocument>(QUARANTINE_COLLECTION);
  const copy = {
    _id: `${target.collection}/${target.id}`,
    schemaVersion: quarantineSchemaVersion,
    collection: target.collection,
    document: found,
    quarantinedAt: deps.clock.now(),
  };
  await kept.insertOne(copy).catch(async (error: unknown) => {
    if (!isPlatformError(error, 'duplicate_key')) throw error;
    // A run killed after its copy left this one; a copy of another document of the same id is kept beside it.
    const earlier = await kept.findOne({ _id: copy._id });
    if (JSON.stringify(earlier?.document) === JSON.stringify(found)) return;
    await kept.insertOne({ ...copy, _id: `${copy._id}@${copy.quarantinedAt.toISOString()}` });
  });
  await items.deleteOne({ _id: target.id });
  return 'moved';
}
