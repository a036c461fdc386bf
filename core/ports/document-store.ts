/**
 * Document store port: collections of JSON documents keyed by a string `_id`, queried with
 * MongoDB query semantics (the MongoDB adapter passes filters through; the embedded SQLite adapter
 * evaluates them with the `mingo` library). `Date` values round-trip as `Date`.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore).
 */
export interface DocumentStore {
  /** The collection `name` (created on first use). */
  collection<T extends BaseDocument>(name: string): DocumentCollection<T>;
  /** Closes connections; further calls fail. */
  close(): Promise<void>;
}

/** Every stored document has a string primary key. */
export interface BaseDocument {
  _id: string;
}

/**
 * What every written document carries besides its key: the version of its collection's shape. The boot census
 * refuses to start on a document without one (spec/platform-service.md § Data update at boot, § Versioning), so
 * the port takes no insert, and no upsert, whose document could lack it: the compiler checks every write.
 */
export interface Versioned {
  schemaVersion: number;
}

/** An update that may insert (an upsert): its `$set` carries the inserted document's {@link Versioned} field. */
export type VersionedUpsert = Update & { $set: Versioned & Record<string, unknown> };

/** A MongoDB-style query filter, e.g. `{ projectId: 'p1', at: { $gte: date } }`. */
export type Filter = Record<string, unknown>;

/** A MongoDB-style update with the operators every adapter supports. */
export interface Update {
  $set?: Record<string, unknown>;
  $unset?: Record<string, true | 1 | ''>;
  $inc?: Record<string, number>;
}

/** Options of {@link DocumentCollection.find}. */
export interface FindOptions {
  /** Field → 1 (ascending) or -1 (descending), applied in key order. */
  sort?: Record<string, 1 | -1>;
  /** Documents skipped before the first one returned: a whole number; default 0. */
  skip?: number;
  /**
   * At most this many documents: a whole number; 0 or absent, all. A skip or limit that is not a whole
   * number ≥ 0 (NaN, negative, fractional) is refused with PlatformError `invalid_find_options` (400).
   */
  limit?: number;
}

/** Options of {@link DocumentCollection.createIndex}. */
export interface IndexOptions {
  unique?: boolean;
  /** Documents whose indexed Date field is older than this many seconds are removed (TTL). */
  expireAfterSeconds?: number;
}

/** One collection. Errors: `duplicate_key` (PlatformError) on a unique violation. */
export interface DocumentCollection<T extends BaseDocument> {
  /**
   * Inserts `doc`, which carries its `schemaVersion` ({@link Versioned}).
   * @throws PlatformError `duplicate_key` when `_id` or a unique index exists.
   */
  insertOne(doc: T & Versioned): Promise<void>;
  /** The first document matching `filter`, or null. */
  findOne(filter: Filter): Promise<T | null>;
  /** Documents matching `filter`. */
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Number of documents matching `filter`. */
  countDocuments(filter: Filter): Promise<number>;
  /**
   * Applies `update` to the first document matching `filter`.
   * @returns matched: 0 or 1; upserted: false
   */
  updateOne(
    filter: Filter,
    update: Update,
    options?: { upsert?: false },
  ): Promise<{ matched: number; upserted: boolean }>;
  /**
   * Applies `update` to the first document matching `filter`; when none matches, inserts
   * `{...equality fields of filter, ...$set}`, so `$set` carries the `schemaVersion` ({@link VersionedUpsert}).
   * @returns matched: 0 or 1; upserted: true when a document was inserted
   */
  updateOne(
    filter: Filter,
    update: VersionedUpsert,
    options: { upsert: boolean },
  ): Promise<{ matched: number; upserted: boolean }>;
  /** Deletes the first matching document; returns how many were deleted (0 or 1). */
  deleteOne(filter: Filter): Promise<number>;
  /** Deletes every matching document; returns how many. */
  deleteMany(filter: Filter): Promise<number>;
  /** Declares an index on `keys` (field → 1 | -1). Idempotent. */
  createIndex(keys: Record<string, 1 | -1>, options?: IndexOptions): Promise<void>;
}
