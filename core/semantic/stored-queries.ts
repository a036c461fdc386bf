/**
 * Stored queries agents replay with execute_stored_query, bounded in time and number: a stored query expires
 * {@link storedQueryExpiryDays} days after its last use (the document store's own TTL index on `lastUsedAt`:
 * MongoDB's TTL monitor, the SQLite adapter's read filter and purge), and each token keeps its
 * {@link maxStoredQueriesPerToken} most recently used ones within {@link maxStoredCharsPerToken} characters of SQL
 * and params (older ones are dropped when new ones are stored).
 * A dropped or expired query answers the same not-found error as an unknown id, with the hint to run
 * execute_query again.
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query, execute_stored_query); docs/decisions.md D18
 * § 4.
 */
import type { DocumentStore } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { collections, semanticSchemaVersion, type StoredQueryRecord } from './records.ts';

/** Days after its last use (execute_query that stored it, or a replay) a stored query expires: 30. */
export const storedQueryExpiryDays = 30;
/** Stored queries kept per token, the most recently used (200); storing one more drops the least recently used. */
export const maxStoredQueriesPerToken = 200;
/**
 * Characters of SQL and params kept per token (16 MiB worth: 16,777,216), counted from the most recently used
 * query: one query holds at most 100,000 characters of SQL and 100 params of 10,000, so 200 large ones would
 * otherwise keep about 220 MB for one token.
 */
export const maxStoredCharsPerToken = 16 * 1024 * 1024;
/**
 * A replay moves `lastUsedAt` forward only when it is older than this (1 hour, in ms): one write per hour of use
 * rather than one per replay. Expiry and the per-token order are therefore exact to within an hour.
 */
export const lastUseResolutionMs = 3_600_000;
/**
 * The quota is checked on every this-many-th store of a token in one process (16), and on its first: counting
 * a token's queries on every execute_query would cost the answer time. A token may hold up to this many more
 * than {@link maxStoredQueriesPerToken} between two checks.
 */
export const quotaCheckEvery = 16;

const dayMs = 86_400_000;

/** Declares the stored queries' indexes: the TTL on `lastUsedAt` and the per-token order (idempotent; at boot). */
export async function ensureStoredQueryIndexes(docs: DocumentStore): Promise<void> {
  const stored = docs.collection(collections.storedQueries);
  await stored.createIndex({ projectId: 1 });
  await stored.createIndex({ lastUsedAt: 1 }, { expireAfterSeconds: storedQueryExpiryDays * 86_400 });
  await stored.createIndex({ tokenId: 1, lastUsedAt: 1 });
}

/** Stores since the last quota check, per token, per document store instance (so tests never share counts). */
const storesSinceCheck = new WeakMap<DocumentStore, Map<string, number>>();

/**
 * Stores a query for replay, used now; then, on the token's first store in this process and every
 * {@link quotaCheckEvery}-th after, drops its least recently used queries beyond {@link maxStoredQueriesPerToken}.
 * @returns the new storedQueryId (random, unguessable)
 */
export async function storeQuery(
  deps: SemanticDeps,
  input: Omit<StoredQueryRecord, '_id' | 'createdAt' | 'lastUsedAt' | 'schemaVersion'>,
): Promise<string> {
  const now = deps.clock.now();
  const record: StoredQueryRecord = {
    _id: deps.ids.newId(),
    schemaVersion: semanticSchemaVersion,
    createdAt: now,
    lastUsedAt: now,
    ...input,
  };
  await storedQueriesOf(deps).insertOne(record);
  if (quotaCheckDue(deps.docs, input.tokenId)) await dropBeyondQuota(deps, input.tokenId);
  return record._id;
}

function quotaCheckDue(docs: DocumentStore, tokenId: string): boolean {
  let counts = storesSinceCheck.get(docs);
  if (!counts) storesSinceCheck.set(docs, counts = new Map());
  const count = counts.get(tokenId) ?? 0;
  counts.set(tokenId, (count + 1) % quotaCheckEvery);
  return count === 0;
}

/**
 * Deletes token `tokenId`'s stored queries beyond its quota: counted from the most recently used, every one past
 * the {@link maxStoredQueriesPerToken}-th or past {@link maxStoredCharsPerToken} characters of SQL and params.
 * @returns how many were deleted
 */
export async function dropBeyondQuota(deps: SemanticDeps, tokenId: string): Promise<number> {
  const stored = storedQueriesOf(deps);
  const newestFirst = await stored.find({ tokenId }, { sort: { lastUsedAt: -1, createdAt: -1 } });
  let chars = 0;
  const beyond = newestFirst.filter((query, index) => {
    chars += query.sql.length + query.params.reduce((sum, param) => sum + param.length, 0);
    return index >= maxStoredQueriesPerToken || chars > maxStoredCharsPerToken;
  });
  if (beyond.length === 0) return 0;
  return stored.deleteMany({ tokenId, _id: { $in: beyond.map((q) => q._id) } });
}

/**
 * The stored query `id` of the project, if its model is within `scope`; a replay counts as a use (see
 * {@link lastUseResolutionMs}). A query stored before expiry was kept (no `lastUsedAt`) counts as last used
 * when it was created, and is deleted once that is {@link storedQueryExpiryDays} days ago.
 * @throws PlatformError `not_found` — the same message whether the id is unknown, expired, dropped by the quota,
 *   of another project or outside the token's scope, so nothing outside the scope is revealed
 */
export async function getStoredQuery(
  deps: SemanticDeps,
  projectId: string,
  id: string,
  scope: string[],
): Promise<StoredQueryRecord> {
  const stored = storedQueriesOf(deps);
  const record = await stored.findOne({ _id: id, projectId });
  if (!record || !scope.includes(record.modelName)) throw notFound(id);
  const now = deps.clock.now();
  const lastUsed = record.lastUsedAt ?? record.createdAt;
  if (now.getTime() - lastUsed.getTime() >= storedQueryExpiryDays * dayMs) {
    await stored.deleteOne({ _id: id, projectId });
    throw notFound(id);
  }
  if (!record.lastUsedAt || now.getTime() - lastUsed.getTime() >= lastUseResolutionMs) {
    await stored.updateOne({ _id: id, projectId }, { $set: { lastUsedAt: now } });
  }
  return record;
}

function notFound(id: string): PlatformError {
  return new PlatformError(
    'not_found',
    `No stored query "${id}" is available to this token: stored queries expire ` +
      `${storedQueryExpiryDays} days after their last use and each token keeps its ${maxStoredQueriesPerToken} most ` +
      'recently used (16 MiB of SQL and params at most); run execute_query again to get a new storedQueryId.',
  );
}

function storedQueriesOf(deps: SemanticDeps) {
  return deps.docs.collection<StoredQueryRecord>(collections.storedQueries);
}
