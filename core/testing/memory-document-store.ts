/**
 * In-memory {@link DocumentStore} fake for unit tests, with the same MongoDB semantics as the SQLite
 * adapter (mingo filters, unique indexes, TTL) and the same contract suite. Documents are deep-copied
 * in and out, so callers never share objects with the store.
 *
 * Source: docs/architecture.md § Ports and adapters (fakes in core/testing).
 */
import type {
  BaseDocument,
  DocumentCollection,
  DocumentStore,
  Filter,
  FindOptions,
  IndexOptions,
  Update,
} from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import {
  applyFindOptions,
  applyUpdate,
  compileFilter,
  duplicateKeyError,
  indexName,
  type IndexSpec,
  isExpired,
  newDocumentId,
  type PlainDocument,
  uniqueKey,
  upsertSeed,
} from '../adapters/sqlite/document-semantics.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';

interface CollectionState {
  docs: Map<string, PlainDocument>;
  indexes: IndexSpec[];
}

/**
 * The data of an in-memory document store, shareable by several store instances (as processes share one
 * SQLite file or one MongoDB database). Opaque: pass it to {@link createMemoryDocumentStore}.
 */
export interface MemoryDocumentData {
  /** @internal collection name → documents and indexes */
  readonly collections: Map<string, CollectionState>;
}

/** Fresh, empty data for one or more {@link createMemoryDocumentStore} instances. */
export function createMemoryDocumentData(): MemoryDocumentData {
  return { collections: new Map() };
}

/**
 * An in-memory document store instance: over fresh, empty data, or over `options.data` shared with other
 * instances (each instance sees the others' writes and closes on its own).
 * @param options - `now`: clock for TTL expiry, default the system clock; `data`: the data to open
 *   (default fresh and empty)
 */
export function createMemoryDocumentStore(
  options: { now?: () => Date; data?: MemoryDocumentData } = {},
): DocumentStore {
  const now = options.now ?? systemClock.now;
  const { collections } = options.data ?? createMemoryDocumentData();
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new PlatformError('store_closed', 'The document store is closed.');
  };
  return {
    collection<T extends BaseDocument>(name: string): DocumentCollection<T> {
      assertOpen();
      let state = collections.get(name);
      if (state === undefined) {
        state = { docs: new Map(), indexes: [] };
        collections.set(name, state);
      }
      return new MemoryCollection<T>(name, state, { now, assertOpen });
    },
    async close() {
      closed = true;
    },
  };
}

class MemoryCollection<T extends BaseDocument> implements DocumentCollection<T> {
  constructor(
    private readonly name: string,
    private readonly state: CollectionState,
    private readonly env: { now: () => Date; assertOpen: () => void },
  ) {}

  async insertOne(doc: T): Promise<void> {
    this.purge();
    if (typeof doc._id !== 'string') throw new PlatformError('invalid_document', 'A document needs a string _id.');
    const copy = structuredClone(doc) as unknown as PlainDocument;
    if (this.state.docs.has(copy._id)) throw duplicateKeyError(this.name);
    this.checkUnique(copy);
    this.state.docs.set(copy._id, copy);
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    this.purge();
    return structuredClone(applyFindOptions(this.matching(filter), options)) as unknown as T[];
  }

  async countDocuments(filter: Filter): Promise<number> {
    this.purge();
    return this.matching(filter).length;
  }

  async updateOne(
    filter: Filter,
    update: Update,
    options: { upsert?: boolean } = {},
  ): Promise<{ matched: number; upserted: boolean }> {
    this.purge();
    const current = this.matching(filter)[0];
    if (current !== undefined) {
      const next = applyUpdate(current, update);
      this.checkUnique(next);
      this.state.docs.set(next._id, next);
      return { matched: 1, upserted: false };
    }
    if (options.upsert !== true) return { matched: 0, upserted: false };
    const created = applyUpdate(upsertSeed(filter, newDocumentId), update);
    if (this.state.docs.has(created._id)) throw duplicateKeyError(this.name);
    this.checkUnique(created);
    this.state.docs.set(created._id, created);
    return { matched: 0, upserted: true };
  }

  async deleteOne(filter: Filter): Promise<number> {
    this.purge();
    const first = this.matching(filter)[0];
    return first !== undefined && this.state.docs.delete(first._id) ? 1 : 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.purge();
    const matches = this.matching(filter);
    for (const doc of matches) this.state.docs.delete(doc._id);
    return matches.length;
  }

  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    this.env.assertOpen();
    const spec: IndexSpec = { name: indexName(keys), keys: { ...keys }, unique: options.unique === true };
    if (options.expireAfterSeconds !== undefined) spec.expireAfterSeconds = options.expireAfterSeconds;
    const existing = this.state.indexes.find((i) => i.name === spec.name);
    if (existing !== undefined) {
      if (JSON.stringify(existing) !== JSON.stringify(spec)) {
        throw new PlatformError('index_conflict', `An index ${spec.name} exists with other options.`, { status: 409 });
      }
      return;
    }
    if (spec.unique) {
      const seen = new Set<string>();
      for (const doc of this.state.docs.values()) {
        const key = uniqueKey(doc, spec.keys);
        if (seen.has(key)) throw duplicateKeyError(this.name);
        seen.add(key);
      }
    }
    this.state.indexes.push(spec);
  }

  private matching(filter: Filter): PlainDocument[] {
    const test = compileFilter(filter);
    return [...this.state.docs.values()].filter((doc) => test(doc));
  }

  /** Drops expired documents (the fake purges on every access). */
  private purge(): void {
    this.env.assertOpen();
    const now = this.env.now();
    for (const doc of [...this.state.docs.values()]) {
      if (isExpired(doc, this.state.indexes, now)) this.state.docs.delete(doc._id);
    }
  }

  private checkUnique(doc: PlainDocument): void {
    for (const index of this.state.indexes.filter((i) => i.unique)) {
      const key = uniqueKey(doc, index.keys);
      for (const other of this.state.docs.values()) {
        if (other._id !== doc._id && uniqueKey(other, index.keys) === key) throw duplicateKeyError(this.name);
      }
    }
  }
}
