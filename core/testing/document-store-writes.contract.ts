/**
 * Write cases of the DocumentStore contract (updates, upserts, unique keys, deletes, indexes, TTL,
 * two instances over the same data) and the helpers both halves share. Registered by
 * `documentStoreContract` in document-store.contract.ts.
 *
 * Source: docs/architecture.md § Ports and adapters.
 */
import { expect, it } from 'vitest';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { skipBecause } from './skip.ts';
import { anyShape, type AnyShapeCollection } from './any-shape.ts';

/** What the factory of `documentStoreContract` returns for one test. */
export interface DocumentStoreFixture {
  /** A store over empty data. */
  store: DocumentStore;
  /** Closes everything `make` opened and removes its data. */
  cleanup(): Promise<void>;
  /**
   * Opens a second store instance over the same data (another process's view: same SQLite file,
   * same MongoDB database); `cleanup` closes it too. Omit when the adapter has no such notion; the
   * cases that need it are skipped.
   */
  openAnother?(): Promise<DocumentStore>;
}

/** A test document. */
export interface Item extends BaseDocument {
  [field: string]: unknown;
}

/** The fixture of the running contract test (filled in by `beforeEach`). */
export interface ContractState {
  fixture: DocumentStoreFixture;
  items: AnyShapeCollection<Item>;
}

/** Ids of `docs`, sorted. */
export function ids(docs: BaseDocument[]): string[] {
  return docs.map((d) => d._id).sort();
}

/** Asserts that `promise` rejects with a PlatformError of `code`. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a rejection with code ${code}`).toBeDefined();
  expect(isPlatformError(error) ? error.code : error).toBe(code);
}

/**
 * Registers the write cases on `state`.
 * @param ttlWaitMs - how long TTL cases poll for expired documents to disappear (0: must be at once)
 */
export function registerWriteCases(state: ContractState, ttlWaitMs: number): void {
  registerUpdateCases(state);
  registerUpsertCases(state);
  registerUniqueKeyCases(state);
  registerIndexAndDeleteCases(state);
  registerTtlCases(state, ttlWaitMs);
  registerSharedDataCases(state);
}

/** Updates: `$set`, `$unset`, `$inc` (dotted paths), the first match only, Dates. */
function registerUpdateCases(state: ContractState): void {
  it('updates with $set, $unset and $inc, dotted paths included', async () => {
    await state.items.insertOne({ _id: 'u', a: { b: 1, c: 2 }, n: 5, gone: 'x', keep: true });
    const result = await state.items.updateOne(
      { _id: 'u' },
      {
        $set: { 'a.b': 10, 'x.y': 'new', top: 'set' },
        $unset: { gone: 1, 'a.c': '' },
        $inc: { n: 2, 'a.d': 3, fresh: -1 },
      },
    );
    expect(result).toEqual({ matched: 1, upserted: false });
    expect(await state.items.findOne({ _id: 'u' })).toEqual({
      _id: 'u',
      a: { b: 10, d: 3 },
      n: 7,
      keep: true,
      x: { y: 'new' },
      top: 'set',
      fresh: -1,
    });
  });

  it('updates only the first match and reports no match', async () => {
    await state.items.insertOne({ _id: 'a', kind: 'k', v: 0 });
    await state.items.insertOne({ _id: 'b', kind: 'k', v: 0 });
    expect(await state.items.updateOne({ kind: 'k' }, { $inc: { v: 1 } })).toEqual({ matched: 1, upserted: false });
    expect(await state.items.countDocuments({ v: 1 })).toBe(1);
    expect(await state.items.updateOne({ kind: 'none' }, { $set: { v: 9 } })).toEqual({ matched: 0, upserted: false });
    expect(await state.items.countDocuments({ v: 9 })).toBe(0);
  });

  it('stores Dates set by an update', async () => {
    const when = new Date('2026-01-02T03:04:05.678Z');
    await state.items.insertOne({ _id: 'd' });
    await state.items.updateOne({ _id: 'd' }, { $set: { when, 'meta.when': when } });
    const found = await state.items.findOne({ when: { $gte: when } });
    expect(found).toEqual({ _id: 'd', when, meta: { when } });
  });
}

/** Upserts: from the filter's equality fields, or its `_id`. */
function registerUpsertCases(state: ContractState): void {
  it('upserts from the equality fields of the filter plus $set, then updates the same document', async () => {
    const filter = { tenant: 't1', name: { $eq: 'n1' }, $and: [{ region: 'eu' }], age: { $gt: 3 } };
    const first = await state.items.updateOne(filter, { $set: { v: 1, age: 4 }, $inc: { count: 1 } }, { upsert: true });
    expect(first).toEqual({ matched: 0, upserted: true });
    const created = await state.items.findOne({ tenant: 't1' });
    expect(typeof created?._id).toBe('string');
    expect(created).toEqual({ _id: created?._id, tenant: 't1', name: 'n1', region: 'eu', v: 1, age: 4, count: 1 });
    const second = await state.items.updateOne(filter, { $set: { v: 2 }, $inc: { count: 1 } }, { upsert: true });
    expect(second).toEqual({ matched: 1, upserted: false });
    expect(await state.items.countDocuments({})).toBe(1);
    expect((await state.items.findOne({ tenant: 't1' }))?.count).toBe(2);
  });

  it('upserts with the _id of the filter', async () => {
    expect(await state.items.updateOne({ _id: 'fixed' }, { $set: { v: 1 } }, { upsert: true })).toEqual({
      matched: 0,
      upserted: true,
    });
    expect(await state.items.findOne({ _id: 'fixed' })).toEqual({ _id: 'fixed', v: 1 });
  });
}

/** Unique keys: `_id`, unique and compound unique indexes, an index refused over duplicates. */
function registerUniqueKeyCases(state: ContractState): void {
  it('rejects a duplicate _id with duplicate_key and keeps the first document', async () => {
    await state.items.insertOne({ _id: 'dup', v: 1 });
    await expectCode(state.items.insertOne({ _id: 'dup', v: 2 }), 'duplicate_key');
    expect(await state.items.find({ _id: 'dup' })).toEqual([{ _id: 'dup', v: 1 }]);
  });

  it('enforces unique indexes on insert, update and upsert', async () => {
    await state.items.createIndex({ email: 1 }, { unique: true });
    await state.items.insertOne({ _id: 'a', email: 'a@x' });
    await state.items.insertOne({ _id: 'b', email: 'b@x' });
    await expectCode(state.items.insertOne({ _id: 'c', email: 'a@x' }), 'duplicate_key');
    await expectCode(state.items.updateOne({ _id: 'b' }, { $set: { email: 'a@x' } }), 'duplicate_key');
    await expectCode(
      state.items.updateOne({ _id: 'z' }, { $set: { email: 'b@x' } }, { upsert: true }),
      'duplicate_key',
    );
    expect(ids(await state.items.find({}))).toEqual(['a', 'b']);
    expect((await state.items.findOne({ _id: 'b' }))?.email).toBe('b@x');
    await state.items.updateOne({ _id: 'b' }, { $set: { email: 'c@x' } });
    await state.items.insertOne({ _id: 'c', email: 'b@x' });
  });

  it('enforces compound unique indexes; a missing field counts as null', async () => {
    await state.items.createIndex({ tenant: 1, slug: 1 }, { unique: true });
    await state.items.insertOne({ _id: 'a', tenant: 't1', slug: 's' });
    await state.items.insertOne({ _id: 'b', tenant: 't2', slug: 's' });
    await expectCode(state.items.insertOne({ _id: 'c', tenant: 't1', slug: 's' }), 'duplicate_key');
    await state.items.insertOne({ _id: 'd', tenant: 't1' });
    await expectCode(state.items.insertOne({ _id: 'e', tenant: 't1' }), 'duplicate_key');
  });

  it('refuses a unique index over existing duplicates with duplicate_key', async () => {
    await state.items.insertOne({ _id: 'a', code: 'x' });
    await state.items.insertOne({ _id: 'b', code: 'x' });
    await expectCode(state.items.createIndex({ code: 1 }, { unique: true }), 'duplicate_key');
    await state.items.insertOne({ _id: 'c', code: 'x' });
  });
}

/** Indexes created twice, deletes of one or many. */
function registerIndexAndDeleteCases(state: ContractState): void {
  it('creates indexes idempotently', async () => {
    await state.items.createIndex({ a: 1 });
    await state.items.createIndex({ a: 1 });
    await state.items.createIndex({ b: 1, c: -1 }, { unique: true });
    await state.items.createIndex({ b: 1, c: -1 }, { unique: true });
    await state.items.insertOne({ _id: 'x', a: 1, b: 1, c: 1 });
    expect(await state.items.countDocuments({ a: 1 })).toBe(1);
  });

  it('deletes one or many and returns the counts', async () => {
    for (const [id, kind] of [['a', 'k'], ['b', 'k'], ['c', 'k'], ['d', 'other']]) {
      await state.items.insertOne({ _id: id, kind });
    }
    expect(await state.items.deleteOne({ kind: 'k' })).toBe(1);
    expect(await state.items.countDocuments({ kind: 'k' })).toBe(2);
    expect(await state.items.deleteOne({ kind: 'none' })).toBe(0);
    expect(await state.items.deleteMany({ kind: 'k' })).toBe(2);
    expect(await state.items.deleteMany({ kind: 'k' })).toBe(0);
    expect(ids(await state.items.find({}))).toEqual(['d']);
    await state.items.insertOne({ _id: 'a', kind: 'again' });
    expect(await state.items.deleteMany({})).toBe(2);
  });
}

/** TTL indexes hide expired documents (within `ttlWaitMs`). */
function registerTtlCases(state: ContractState, ttlWaitMs: number): void {
  it('hides documents whose TTL-indexed Date is older than expireAfterSeconds', async () => {
    await state.items.createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 });
    const now = systemClock.now().getTime();
    await state.items.insertOne({ _id: 'old', createdAt: new Date(now - 2 * 3_600_000) });
    await state.items.insertOne({ _id: 'fresh', createdAt: new Date(now - 60_000) });
    await state.items.insertOne({ _id: 'no-date', createdAt: 'not a date' });
    await state.items.insertOne({ _id: 'missing' });
    const expected = ['fresh', 'missing', 'no-date'];
    await eventually(ttlWaitMs, async () => {
      expect(ids(await state.items.find({}))).toEqual(expected);
      expect(await state.items.countDocuments({})).toBe(3);
      expect(await state.items.findOne({ _id: 'old' })).toBeNull();
      expect(await state.items.updateOne({ _id: 'old' }, { $set: { v: 1 } })).toEqual({ matched: 0, upserted: false });
    });
  });
}

/** Two store instances over the same data (skipped without `openAnother`). */
function registerSharedDataCases(state: ContractState): void {
  it('lets two store instances over the same data see each other’s writes', async (ctx) => {
    if (state.fixture.openAnother === undefined) {
      return skipBecause(
        ctx,
        'this store gives no second instance over the same data (the fixture has no openAnother)',
      );
    }
    const otherStore = await state.fixture.openAnother();
    expect(otherStore, 'openAnother must open a second instance, not hand back the first').not.toBe(
      state.fixture.store,
    );
    const other = anyShape(otherStore.collection<Item>('items'));
    await state.items.insertOne({ _id: 'from-one', v: 1 });
    expect(await other.findOne({ _id: 'from-one' })).toEqual({ _id: 'from-one', v: 1 });
    await other.updateOne({ _id: 'from-one' }, { $set: { v: 2 } });
    await other.insertOne({ _id: 'from-two' });
    expect((await state.items.findOne({ _id: 'from-one' }))?.v).toBe(2);
    expect(ids(await state.items.find({}))).toEqual(['from-one', 'from-two']);
    await state.fixture.store.collection<Item>('users').createIndex({ email: 1 }, { unique: true });
    const otherUsers = anyShape((await state.fixture.openAnother()).collection<Item>('users'));
    await otherUsers.insertOne({ _id: 'e1', email: 'x' });
    await expectCode(otherUsers.insertOne({ _id: 'e2', email: 'x' }), 'duplicate_key');
  });

  it('never loses an $inc when two instances update one document concurrently', async (ctx) => {
    if (state.fixture.openAnother === undefined) {
      return skipBecause(
        ctx,
        'this store gives no second instance over the same data (the fixture has no openAnother)',
      );
    }
    const other = anyShape((await state.fixture.openAnother()).collection<Item>('items'));
    await state.items.insertOne({ _id: 'counter', n: 0 });
    const bump = (collection: AnyShapeCollection<Item>) => collection.updateOne({ _id: 'counter' }, { $inc: { n: 1 } });
    await Promise.all(Array.from({ length: 200 }, () => [bump(state.items), bump(other)]).flat());
    expect((await other.findOne({ _id: 'counter' }))?.n).toBe(400);
  });

  it('closes one instance without closing another over the same data', async (ctx) => {
    if (state.fixture.openAnother === undefined) {
      return skipBecause(
        ctx,
        'this store gives no second instance over the same data (the fixture has no openAnother)',
      );
    }
    const otherStore = await state.fixture.openAnother();
    await anyShape(otherStore.collection<Item>('items')).insertOne({ _id: 'before-close', v: 1 });
    await otherStore.close();
    await expectCode(
      (async () => otherStore.collection<Item>('items').findOne({ _id: 'before-close' }))(),
      'store_closed',
    );
    expect(await state.items.findOne({ _id: 'before-close' })).toEqual({ _id: 'before-close', v: 1 });
  });
}

/** Runs `check` until it passes, once a second, failing with its error past `waitMs`. */
async function eventually(waitMs: number, check: () => Promise<void>): Promise<void> {
  const deadline = systemClock.now().getTime() + waitMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (systemClock.now().getTime() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
