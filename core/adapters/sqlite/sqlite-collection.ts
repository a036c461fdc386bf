/**
 * One collection of the SQLite document store: a table `(_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`.
 * Reads narrow rows in SQL ({@link pushDown}) and decide with mingo; writes that read first run in
 * `BEGIN IMMEDIATE` transactions, so processes sharing the file never lose an update.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore, embedded SQLite).
 */
import type {
  BaseDocument,
  DocumentCollection,
  Filter,
  FindOptions,
  IndexOptions,
  Update,
} from '../../ports/document-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { decodeDocument, encodeDocument } from './document-codec.ts';
import {
  applyFindOptions,
  applyUpdate,
  compileFilter,
  duplicateKeyError,
  type IndexSpec,
  isExpired,
  newDocumentId,
  type PlainDocument,
  upsertSeed,
} from './document-semantics.ts';
import {
  inImmediateTransaction,
  isBusy,
  isUniqueViolation,
  type SqlDriver,
  writeWithoutBlocking,
} from './sqlite-driver.ts';
import type { InsertBatcher } from './insert-batch.ts';
import { declareIndex, type IndexCache, indexSpecsAt, purgeExpired } from './sqlite-indexes.ts';
import { dateOrderSql, INDEX_GENERATION, pushDown, tableFor } from './sqlite-sql.ts';

/** What a collection needs from its store. */
export interface SqliteCollectionContext {
  driver: SqlDriver;
  /** The store's clock (TTL). */
  now: () => Date;
  /** Throws PlatformError `store_closed` once the store is closed. */
  assertOpen: () => void;
  /** Collection name → time (ms) of its last TTL purge by this store instance. */
  lastPurgeMs: Map<string, number>;
  /** Minimum time between two TTL purges of one collection, in ms. */
  purgeIntervalMs: number;
  /** Index specs read by this store, valid while the index generation is the one it holds. */
  indexCache: IndexCache;
  /** The connection's busy timeout, in ms: how long a write keeps trying for another connection's lock. */
  busyTimeoutMs: number;
  /** Commits the inserts of one event-loop turn together (insert-batch.ts). */
  inserts: InsertBatcher;
}

/** {@link DocumentCollection} on one SQLite table; see the module comment. */
export class SqliteCollection<T extends BaseDocument> implements DocumentCollection<T> {
  readonly #name: string;
  readonly #table: string;
  readonly #ctx: SqliteCollectionContext;

  /** @param name - collection name; its table must exist */
  constructor(name: string, ctx: SqliteCollectionContext) {
    this.#name = name;
    this.#table = tableFor(name);
    this.#ctx = ctx;
  }

  async insertOne(doc: T): Promise<void> {
    this.#enter();
    if (typeof doc._id !== 'string') {
      throw new PlatformError('invalid_document', 'A document needs a string _id.', { status: 400 });
    }
    const text = encodeDocument(doc);
    // A live document under this _id (a retried delivery's claim, say) is a duplicate found by a read: no write lock
    // is taken for it, so a retry never waits behind another process's writes.
    const existing = this.#ctx.driver.prepare(`SELECT doc, ${INDEX_GENERATION} AS g FROM ${this.#table} WHERE _id = ?`)
      .get(doc._id);
    if (existing !== undefined) {
      const specs = this.#specsAt(Number(existing.g));
      if (!isExpired(decodeDocument(String(existing.doc)), specs, this.#ctx.now())) throw duplicateKeyError(this.#name);
    }
    const insert = () =>
      this.#ctx.driver.prepare(`INSERT INTO ${this.#table} (_id, doc) VALUES (?, ?)`).run(doc._id, text);
    // Committed with the other inserts of this event-loop turn (group commit); answered alone after the commit.
    await this.#ctx.inserts.insert(() => {
      try {
        insert();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The clashing document may have expired without being purged yet.
        const purged = purgeExpired(this.#ctx.driver, this.#name, this.#specsAt(), this.#ctx.now());
        if (purged === 0) throw duplicateKeyError(this.#name, error);
        this.#translate(insert);
      }
    });
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    this.#enter();
    // Without a sort, the first skip + limit matches in insertion order are all a find needs: stop
    // decoding there rather than decode every matching document.
    const unsorted = options.sort === undefined || Object.keys(options.sort).length === 0;
    const enough = unsorted && typeof options.limit === 'number' && options.limit > 0
      ? options.limit + (options.skip ?? 0)
      : undefined;
    const first = unsorted ? undefined : this.#firstByDate(filter, options);
    if (first !== undefined) return applyFindOptions(first, options) as unknown as T[];
    return applyFindOptions(
      this.#matching(filter, Number.isSafeInteger(enough) ? enough : undefined),
      options,
    ) as unknown as T[];
  }

  async countDocuments(filter: Filter): Promise<number> {
    this.#enter();
    return this.#matching(filter).length;
  }

  async updateOne(
    filter: Filter,
    update: Update,
    options: { upsert?: boolean } = {},
  ): Promise<{ matched: number; upserted: boolean }> {
    this.#enter();
    return this.#write(() =>
      this.#translate(() =>
        inImmediateTransaction(this.#ctx.driver, () => {
          const current = this.#matching(filter, 1)[0];
          if (current !== undefined) {
            const next = encodeDocument(applyUpdate(current, update));
            this.#ctx.driver.prepare(`UPDATE ${this.#table} SET doc = ? WHERE _id = ?`).run(next, current._id);
            return { matched: 1, upserted: false };
          }
          if (options.upsert !== true) return { matched: 0, upserted: false };
          const created = applyUpdate(upsertSeed(filter, newDocumentId), update);
          purgeExpired(this.#ctx.driver, this.#name, this.#specsAt(), this.#ctx.now());
          this.#ctx.driver.prepare(`INSERT INTO ${this.#table} (_id, doc) VALUES (?, ?)`).run(
            created._id,
            encodeDocument(created),
          );
          return { matched: 0, upserted: true };
        })
      )
    );
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.#delete(filter, 1);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.#delete(filter, undefined);
  }

  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    this.#ctx.assertOpen();
    this.#ctx.indexCache.byCollection.clear();
    declareIndex(this.#ctx.driver, this.#name, { keys, options });
  }

  /**
   * Checks the store is open and purges expired documents when due, by the TTL indexes this store last saw (read when
   * it saw none; a spec is never removed, so they never purge a document no index expires). Runs no statement when no
   * purge is due: the specs that judge a read's documents come with its rows (`#specsAt`).
   */
  #enter(): void {
    this.#ctx.assertOpen();
    const now = this.#ctx.now();
    const last = this.#ctx.lastPurgeMs.get(this.#name);
    if (last !== undefined && now.getTime() - last < this.#ctx.purgeIntervalMs) return;
    const specs = this.#ctx.indexCache.byCollection.get(this.#name) ?? this.#specsAt();
    if (!specs.some((i) => i.expireAfterSeconds !== undefined)) return;
    this.#ctx.lastPurgeMs.set(this.#name, now.getTime());
    // Never waits for another connection's lock (reads hide expired documents anyway): a busy file is purged later.
    try {
      this.#ctx.driver.withBusyTimeout(0, () => purgeExpired(this.#ctx.driver, this.#name, specs, now));
    } catch (error) {
      if (!isBusy(error)) throw error;
      this.#ctx.lastPurgeMs.delete(this.#name);
    }
  }

  /**
   * This collection's index specs at index generation `generation`: give the one the statement that read the documents
   * to judge selected (sqlite-indexes.ts `IndexCache`); without one, the current generation is read.
   */
  #specsAt(generation?: number): IndexSpec[] {
    return indexSpecsAt(this.#ctx.driver, this.#ctx.indexCache, this.#name, generation);
  }

  /**
   * For a find sorted first by a Date field with a limit: the matching documents that can be among the first
   * skip + limit, read in that field's order through SQL (see sqlite-sql.ts `dateOrderSql`) and decoded only until
   * enough matched and the field's value changes (every document tied with the last one taken is kept), returned in
   * insertion order for the full sort. Undefined when the sort or the data do not allow it (the full path then).
   */
  #firstByDate(filter: Filter, options: FindOptions): PlainDocument[] | undefined {
    const [[field, direction] = []] = Object.entries(options.sort ?? {});
    const wanted = (options.skip ?? 0) + (options.limit ?? 0);
    const skipOk = options.skip === undefined || (Number.isSafeInteger(options.skip) && options.skip >= 0);
    if (!(Number.isSafeInteger(options.limit) && (options.limit as number) > 0 && skipOk)) return undefined;
    if (field === undefined || field === '_id' || (direction !== 1 && direction !== -1)) return undefined;
    const test = compileFilter(filter);
    const { where, params } = pushDown(filter);
    const sql = dateOrderSql(this.#table, where, field, direction);
    if (sql === undefined || this.#ctx.driver.prepare(sql.guard).get(...params) !== undefined) return undefined;
    const now = this.#ctx.now();
    const taken: Array<{ rowid: number; doc: PlainDocument }> = [];
    let last: string | undefined;
    for (const row of this.#ctx.driver.prepare(sql.select).iterate(...params)) {
      if (taken.length >= wanted && String(row.k) !== last) break;
      const doc = decodeDocument<PlainDocument>(String(row.doc));
      if (!test(doc) || isExpired(doc, this.#specsAt(Number(row.g)), now)) continue;
      taken.push({ rowid: Number(row.r), doc });
      last = String(row.k);
    }
    return taken.sort((a, b) => a.rowid - b.rowid).map((t) => t.doc);
  }

  /** Live (not expired) documents matching `filter` in insertion order, at most `limit`. */
  #matching(filter: Filter, limit?: number): PlainDocument[] {
    const test = compileFilter(filter);
    const { where, params } = pushDown(filter);
    const sql = `SELECT doc, ${INDEX_GENERATION} AS g FROM ${this.#table} WHERE ${where} ORDER BY rowid`;
    const rows = this.#ctx.driver.prepare(sql).all(...params);
    if (rows.length === 0) return [];
    const indexes = this.#specsAt(Number(rows[0].g));
    const now = this.#ctx.now();
    const out: PlainDocument[] = [];
    for (const row of rows) {
      const doc = decodeDocument<PlainDocument>(String(row.doc));
      if (test(doc) && !isExpired(doc, indexes, now)) out.push(doc);
      if (limit !== undefined && out.length >= limit) break;
    }
    return out;
  }

  async #delete(filter: Filter, limit: number | undefined): Promise<number> {
    this.#enter();
    return this.#write(() =>
      inImmediateTransaction(this.#ctx.driver, () => {
        const statement = this.#ctx.driver.prepare(`DELETE FROM ${this.#table} WHERE _id = ?`);
        let deleted = 0;
        for (const doc of this.#matching(filter, limit)) deleted += statement.run(doc._id).changes;
        return deleted;
      })
    );
  }

  /**
   * Runs the synchronous write `fn` without blocking the event loop on another connection's write lock (see
   * sqlite-driver.ts `writeWithoutBlocking`): a busy file is tried again after a timer, up to the busy timeout.
   */
  #write<R>(fn: () => R): Promise<R> {
    return writeWithoutBlocking(this.#ctx.driver, this.#ctx.busyTimeoutMs, () => {
      this.#ctx.assertOpen();
      return fn();
    });
  }

  /** Runs `fn`, turning SQLite unique violations into PlatformError `duplicate_key`. */
  #translate<R>(fn: () => R): R {
    try {
      return fn();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKeyError(this.#name, error);
      throw error;
    }
  }
}
