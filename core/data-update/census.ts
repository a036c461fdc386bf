/**
 * Reads which schema versions each collection holds, with counts only (the DocumentStore port has
 * no distinct or aggregate): per known version, below the baseline, above the current version, and
 * without a usable version.
 *
 * Source: spec/platform-service.md § Data update at boot (steps 1–2).
 */
import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionVersions, ReleaseData, StoredDocument } from './model.ts';

/** What one collection holds. */
export interface CollectionCensus extends CollectionVersions {
  collection: string;
  /** Documents at each version from baseline to current. */
  atVersion: Map<number, number>;
  /** Documents at a version below the baseline, and the lowest such version. */
  below: { count: number; lowest?: number };
  /** Documents at a version above the current one, and the highest such version. */
  above: { count: number; highest?: number };
  /** Documents without a schemaVersion, or with one that is not a known whole number; a few of their ids. */
  unversioned: { count: number; sampleIds: string[] };
}

/**
 * Declares the `schemaVersion_1` index of every collection the release knows (idempotent).
 * Source: spec/platform-service.md § Data update at boot (step 1).
 */
export async function ensureVersionIndexes(docs: DocumentStore, release: ReleaseData): Promise<void> {
  for (const name of Object.keys(release.collections)) await docs.collection(name).createIndex({ schemaVersion: 1 });
}

/**
 * Counts each collection's documents by version.
 * @returns one census per collection of the release, in the release's order
 *
 * Source: spec/platform-service.md § Data update at boot (step 2).
 */
export async function readCensus(docs: DocumentStore, release: ReleaseData): Promise<CollectionCensus[]> {
  const result: CollectionCensus[] = [];
  for (const [collection, versions] of Object.entries(release.collections)) {
    result.push(await readCollection(docs, collection, versions));
  }
  return result;
}

async function readCollection(
  docs: DocumentStore,
  collection: string,
  versions: CollectionVersions,
): Promise<CollectionCensus> {
  const items = docs.collection<StoredDocument>(collection);
  const total = await items.countDocuments({});
  const atVersion = new Map<number, number>();
  let known = 0;
  for (let v = versions.baseline; v <= versions.current && total > 0; v += 1) {
    const count = await items.countDocuments({ schemaVersion: v });
    atVersion.set(v, count);
    known += count;
  }
  const below = await outside(items, { $lt: versions.baseline }, 1);
  const above = await outside(items, { $gt: versions.current }, -1);
  const unversionedCount = total - known - below.count - above.count;
  const sampleIds = unversionedCount > 0
    ? (await items.find({ schemaVersion: { $not: { $type: 'number' } } }, { sort: { _id: 1 }, limit: 3 })).map((d) =>
      d._id
    )
    : [];
  return {
    collection,
    ...versions,
    atVersion,
    below: { count: below.count, ...(below.version === undefined ? {} : { lowest: below.version }) },
    above: { count: above.count, ...(above.version === undefined ? {} : { highest: above.version }) },
    unversioned: { count: unversionedCount, sampleIds },
  };
}

/** Count of documents whose version matches `range`, and the extreme version (lowest for 1, highest for -1). */
async function outside(
  items: ReturnType<DocumentStore['collection']>,
  range: Record<string, number>,
  order: 1 | -1,
): Promise<{ count: number; version?: number }> {
  const filter = { schemaVersion: range };
  const count = await items.countDocuments(filter);
  if (count === 0) return { count };
  const [extreme] = await items.find(filter, { sort: { schemaVersion: order }, limit: 1 });
  const version = (extreme as { schemaVersion?: unknown } | undefined)?.schemaVersion;
  return typeof version === 'number' ? { count, version } : { count };
}

/** Documents at versions baseline..`upTo` of a census (those an update from `upTo` will rewrite). */
export function documentsUpTo(census: CollectionCensus, upTo: number): number {
  let sum = 0;
  for (const [version, count] of census.atVersion) if (version <= upTo) sum += count;
  return sum;
}
