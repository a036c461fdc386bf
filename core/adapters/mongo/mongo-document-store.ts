/**
 * The production {@link DocumentStore} on MongoDB through the official driver. Thin on purpose:
 * filters, sorts and update operators pass through, Dates are native BSON dates, TTL is MongoDB's own
 * TTL index (expired documents vanish within about a minute, when the server's monitor runs).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore: MongoDB official driver);
 * spec/platform-service.md § Deployment settings (DOCDB_URI).
 */
import { type Collection, type Document, MongoClient } from 'mongodb';
import type {
  BaseDocument,
  DocumentCollection,
  DocumentStore,
  Filter,
  FindOptions,
  IndexOptions,
  Update,
} from '../../ports/document-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { escapeKeysDeep, unescapeKeysDeep } from '../document-keys.ts';
import { mongoFailure, redactMongoUri, scrubCredentials } from './mongo-errors.ts';

/**
 * Options of {@link openMongoDocumentStore}.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI); core/ports/document-store.ts.
 */
export interface MongoDocumentStoreOptions {
  /** `mongodb://` or `mongodb+srv://` connection string (DOCDB_URI); its options (TLS, replica set, timeouts) apply. */
  uri: string;
  /** Database name; default the one in the URI path, else `cairn`. */
  dbName?: string;
}

/**
 * Connects to MongoDB and returns the store once a server answered.
 *
 * Semantics: `insertOne` and unique violations anywhere answer `duplicate_key` (server code 11000);
 * an unknown query operator answers `invalid_filter`; `updateOne` with `upsert` inserts the filter's
 * equality fields plus the update, with a fresh string `_id` unless the filter names one; undefined
 * fields are left out (as the embedded store does); an index on the same keys with other options answers
 * `index_conflict`. Keys of stored values that MongoDB would refuse or misread (`$`-prefixed such as `$date` or
 * `$ref`, dotted, `__proto__`, empty) are escaped on write (documents and `$set` values) and restored on read
 * (../document-keys.ts); filters and update paths pass as written: they name the platform's own fields.
 *
 * @returns the store; `close()` closes the client, after which calls fail with `store_closed`
 * @throws PlatformError `invalid_config` when the URI cannot be parsed; `store_unreachable` (503) when
 *   no server answered within the URI's `serverSelectionTimeoutMS` (default 30 s) or authentication
 *   failed. Messages name the hosts, never the user name or password.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI); core/ports/document-store.ts.
 */
export async function openMongoDocumentStore(options: MongoDocumentStoreOptions): Promise<DocumentStore> {
  const client = createClient(options.uri);
  try {
    await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    const reason = scrubCredentials((error as Error)?.message ?? String(error), options.uri);
    throw new PlatformError(
      'store_unreachable',
      `DOCDB_URI: cannot connect to ${redactMongoUri(options.uri)}: ${reason}`,
      { status: 503 },
    );
  }
  const db = client.db(options.dbName ?? databaseInUri(options.uri) ?? 'cairn');
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new PlatformError('store_closed', 'The document store is closed.');
  };
  return {
    collection<T extends BaseDocument>(name: string): DocumentCollection<T> {
      assertOpen();
      if (name.length === 0) throw new PlatformError('invalid_collection', 'A collection name cannot be empty.');
      return mongoCollection<T>(db.collection(name), name, assertOpen);
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

function createClient(uri: string): MongoClient {
  try {
    return new MongoClient(uri, { ignoreUndefined: true });
  } catch (error) {
    const reason = scrubCredentials((error as Error)?.message ?? String(error), uri);
    throw new PlatformError('invalid_config', `DOCDB_URI: not a valid MongoDB connection string: ${reason}`);
  }
}

/**
 * The database named in the path of a MongoDB URI, or undefined.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI); core/ports/document-store.ts.
 */
export function databaseInUri(uri: string): string | undefined {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(uri)?.[1];
  return path ? decodeURIComponent(path) : undefined;
}

/** The port's collection over a driver collection. */
function mongoCollection<T extends BaseDocument>(
  collection: Collection<Document>,
  name: string,
  assertOpen: () => void,
): DocumentCollection<T> {
  const run = async <R>(kind: 'read' | 'write' | 'index', operation: () => Promise<R>): Promise<R> => {
    assertOpen();
    try {
      return await operation();
    } catch (error) {
      throw mongoFailure(error, name, kind);
    }
  };
  return {
    insertOne: (doc) =>
      run(
        'write',
        async () => void (await collection.insertOne(escapeKeysDeep({ ...doc }) as Document)),
      ),
    findOne: (filter) => run('read', async () => unescapeKeysDeep(await collection.findOne(filter)) as T | null),
    find: (filter, findOptions) =>
      run(
        'read',
        async () => (await findCursor(collection, filter, findOptions).toArray()).map(unescapeKeysDeep) as T[],
      ),
    countDocuments: (filter) => run('read', () => collection.countDocuments(filter)),
    updateOne: (filter, update, updateOptions) =>
      run('write', () => updateOne(collection, filter, update, updateOptions?.upsert === true)),
    deleteOne: (filter) => run('read', async () => (await collection.deleteOne(filter)).deletedCount),
    deleteMany: (filter) => run('read', async () => (await collection.deleteMany(filter)).deletedCount),
    createIndex: (keys, indexOptions) => run('index', () => createIndex(collection, keys, indexOptions)),
  };
}

/**
 * A cursor for `filter` with the find options applied. A `skip` or `limit` that is not a whole number ≥ 0
 * (NaN, negative, fractional) is refused rather than read as "no limit"; a limit of 0 means no limit.
 * @throws PlatformError `invalid_find_options` (400) naming the option (the same rule as the embedded stores)
 */
function findCursor(collection: Collection<Document>, filter: Filter, options: FindOptions = {}) {
  for (const name of ['skip', 'limit'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new PlatformError(
        'invalid_find_options',
        `The find option ${name} must be a whole number ≥ 0 (got ${String(value)}).`,
        { status: 400 },
      );
    }
  }
  let cursor = collection.find(filter);
  if (options.sort !== undefined && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort);
  if (options.skip !== undefined && options.skip > 0) cursor = cursor.skip(options.skip);
  if (options.limit !== undefined && options.limit > 0) cursor = cursor.limit(options.limit);
  return cursor;
}

async function updateOne(collection: Collection<Document>, filter: Filter, update: Update, upsert: boolean) {
  const modifier: Document = {};
  // $set's paths are the platform's own field names; the values' keys (a caller's or a model's) are escaped.
  if (update.$set !== undefined && Object.keys(update.$set).length > 0) modifier.$set = escapeSetValues(update.$set);
  if (update.$unset !== undefined && Object.keys(update.$unset).length > 0) modifier.$unset = update.$unset;
  if (update.$inc !== undefined && Object.keys(update.$inc).length > 0) modifier.$inc = update.$inc;
  // MongoDB would give an upserted document an ObjectId; the port's _id is always a string.
  if (upsert && !namesId(filter) && !('_id' in (update.$set ?? {}))) modifier.$setOnInsert = { _id: newDocumentId() };
  // An update without operators matches (and upserts) without changing anything; MongoDB ≥ 5.0 accepts an empty $set.
  if (Object.keys(modifier).length === 0) modifier.$set = {};
  const result = await collection.updateOne(filter, modifier, { upsert });
  return { matched: result.matchedCount, upserted: result.upsertedCount > 0 };
}

/** `$set` with each value's keys escaped (../document-keys.ts) and each path as it is. */
function escapeSetValues(set: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(set).map(([path, value]) => [path, escapeKeysDeep(value)]));
}

/** True when `filter` fixes `_id` by equality at the top level or inside `$and` (MongoDB then seeds it). */
function namesId(filter: Filter): boolean {
  if ('_id' in filter) {
    const value = filter._id;
    const isOperator = typeof value === 'object' && value !== null && Object.keys(value).some((k) => k.startsWith('$'));
    return !isOperator || '$eq' in (value as object);
  }
  const parts = filter.$and;
  return Array.isArray(parts) && parts.some((part) => namesId(part as Filter));
}

async function createIndex(
  collection: Collection<Document>,
  keys: Record<string, 1 | -1>,
  options: IndexOptions = {},
): Promise<void> {
  await collection.createIndex(keys, {
    ...(options.unique ? { unique: true } : {}),
    ...(options.expireAfterSeconds !== undefined ? { expireAfterSeconds: options.expireAfterSeconds } : {}),
  });
}

function newDocumentId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '');
}
