/**
 * Contract suite of the {@link DocumentStore} port: every adapter (the in-memory fake, SQLite,
 * MongoDB) registers it from its own test file and must pass it unchanged.
 *
 * Source: docs/architecture.md § Ports and adapters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentCollection } from '../ports/document-store.ts';
import {
  type ContractState,
  type DocumentStoreFixture,
  expectCode,
  ids,
  type Item,
  registerWriteCases,
} from './document-store-writes.contract.ts';
import { registerKeyCases } from './document-store-keys.contract.ts';
import { registerInCases } from './document-store-in.contract.ts';
import { registerConcurrentCases } from './document-store-concurrent.contract.ts';
import { anyShape } from './any-shape.ts';

export type { DocumentStoreFixture, Item } from './document-store-writes.contract.ts';

/** Options of {@link documentStoreContract}. */
export interface DocumentStoreContractOptions {
  /**
   * How long TTL cases wait for expired documents to disappear, in ms; default 0 (at once).
   * MongoDB removes them from a background monitor every ~60 s: give it 120 000.
   */
  ttlWaitMs?: number;
}

/**
 * Registers the DocumentStore contract as a vitest `describe` block named `DocumentStore contract: <name>`.
 * @param name - adapter name shown in test output
 * @param make - creates a fresh, empty store per test
 * @param options - see {@link DocumentStoreContractOptions}
 */
export function documentStoreContract(
  name: string,
  make: () => Promise<DocumentStoreFixture>,
  options: DocumentStoreContractOptions = {},
): void {
  describe(`DocumentStore contract: ${name}`, () => {
    const state = {} as ContractState;
    beforeEach(async () => {
      state.fixture = await make();
      state.items = anyShape(state.fixture.store.collection<Item>('items'));
    });
    afterEach(async () => {
      await state.fixture.cleanup();
    });
    registerFindCases(state);
    registerFilterCases(state);
    registerCountAndCollectionCases(state);
    registerDateAndOrderCases(state);
    registerWriteCases(state, options.ttlWaitMs ?? 0);
    registerKeyCases(state);
    registerInCases(state);
    registerConcurrentCases(state);
  });
}

const PEOPLE: Item[] = [
  { _id: 'p1', name: 'ada', age: 36, tags: ['math', 'code'], address: { city: 'london', zip: 'N1' } },
  { _id: 'p2', name: 'bob', age: 25, tags: ['art'], address: { city: 'paris' } },
  { _id: 'p3', name: 'cy', age: 41, tags: [], nickname: null },
  { _id: 'p4', name: 'dee', age: 25, address: { city: 'london', zip: 'E2' } },
];

/** Inserts {@link PEOPLE}. */
async function seedPeople(state: ContractState): Promise<void> {
  for (const person of PEOPLE) await state.items.insertOne(person);
}

/** Finding by `_id`, results as copies. */
function registerFindCases(state: ContractState): void {
  const seed = () => seedPeople(state);

  it('inserts and finds a document by _id; a missing one is null', async () => {
    await seed();
    expect(await state.items.findOne({ _id: 'p1' })).toEqual(PEOPLE[0]);
    expect(await state.items.findOne({ _id: 'nope' })).toBeNull();
    expect(await state.items.find({ _id: 'nope' })).toEqual([]);
  });

  it('returns copies: changing a result does not change the store', async () => {
    await seed();
    const found = await state.items.findOne({ _id: 'p2' });
    (found as Item).name = 'changed';
    expect((await state.items.findOne({ _id: 'p2' }))?.name).toBe('bob');
  });
}

/** Query operators: comparisons, `$exists`, `$and`, `$or`, dotted paths and arrays. */
function registerFilterCases(state: ContractState): void {
  const seed = () => seedPeople(state);

  it('evaluates comparison operators', async () => {
    await seed();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ age: 25 }, ['p2', 'p4']],
      [{ age: { $eq: 36 } }, ['p1']],
      [{ age: { $ne: 25 } }, ['p1', 'p3']],
      [{ age: { $gt: 36 } }, ['p3']],
      [{ age: { $gte: 36 } }, ['p1', 'p3']],
      [{ age: { $lt: 36 } }, ['p2', 'p4']],
      [{ age: { $lte: 36 } }, ['p1', 'p2', 'p4']],
      [{ age: { $gt: 20, $lt: 40 } }, ['p1', 'p2', 'p4']],
      [{ name: { $in: ['ada', 'cy', 'zed'] } }, ['p1', 'p3']],
      [{ name: { $nin: ['ada', 'cy'] } }, ['p2', 'p4']],
      [{ _id: { $in: ['p2', 'p4', 'p9'] } }, ['p2', 'p4']],
      [{ name: 'bob', age: 25 }, ['p2']],
      [{ name: 'bob', age: 26 }, []],
    ];
    for (const [filter, expected] of cases) {
      expect(ids(await state.items.find(filter)), JSON.stringify(filter)).toEqual(expected);
    }
  });

  it('evaluates $exists, $and, $or', async () => {
    await seed();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ address: { $exists: true } }, ['p1', 'p2', 'p4']],
      [{ address: { $exists: false } }, ['p3']],
      [{ nickname: { $exists: true } }, ['p3']],
      [{ $and: [{ age: 25 }, { 'address.city': 'london' }] }, ['p4']],
      [{ $or: [{ name: 'ada' }, { age: { $gt: 40 } }] }, ['p1', 'p3']],
      [{ $or: [{ name: 'ada' }, { name: 'bob' }], age: 25 }, ['p2']],
    ];
    for (const [filter, expected] of cases) {
      expect(ids(await state.items.find(filter)), JSON.stringify(filter)).toEqual(expected);
    }
  });

  it('matches nested dotted paths and arrays', async () => {
    await seed();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ 'address.city': 'london' }, ['p1', 'p4']],
      [{ 'address.zip': { $exists: true } }, ['p1', 'p4']],
      [{ 'address.zip': { $gt: 'E' } }, ['p1', 'p4']],
      [{ address: { city: 'paris' } }, ['p2']],
      [{ tags: 'code' }, ['p1']],
      [{ tags: { $in: ['art', 'code'] } }, ['p1', 'p2']],
      [{ tags: ['math', 'code'] }, ['p1']],
      [{ tags: { $size: 0 } }, ['p3']],
    ];
    for (const [filter, expected] of cases) {
      expect(ids(await state.items.find(filter)), JSON.stringify(filter)).toEqual(expected);
    }
  });
}

/** Counts, an unknown operator, collections kept apart. */
function registerCountAndCollectionCases(state: ContractState): void {
  const seed = () => seedPeople(state);

  it('counts documents', async () => {
    await seed();
    expect(await state.items.countDocuments({})).toBe(4);
    expect(await state.items.countDocuments({ age: 25 })).toBe(2);
    expect(await state.items.countDocuments({ name: 'zed' })).toBe(0);
    expect(await state.fixture.store.collection('empty').countDocuments({})).toBe(0);
  });

  it('rejects an unknown query operator with invalid_filter', async () => {
    await seed();
    await expectCode(state.items.find({ age: { $almost: 3 } }), 'invalid_filter');
  });

  it('keeps collections apart', async () => {
    await state.items.insertOne({ _id: 'x', v: 1 });
    await anyShape(state.fixture.store.collection<Item>('others')).insertOne({ _id: 'x', v: 2 });
    expect((await state.items.findOne({ _id: 'x' }))?.v).toBe(1);
    expect((await state.fixture.store.collection<Item>('others').findOne({ _id: 'x' }))?.v).toBe(2);
  });
}

function registerDateAndOrderCases(state: ContractState): void {
  const base = new Date('2026-03-01T12:00:00.000Z');
  const at = (hours: number) => new Date(base.getTime() + hours * 3_600_000);

  it('round-trips Dates at any depth', async () => {
    const doc: Item = { _id: 'd', at: at(0), nested: { when: at(1) }, list: [at(2), 'x'] };
    await state.items.insertOne(doc);
    const found = await state.items.findOne({ _id: 'd' });
    expect(found?.at).toBeInstanceOf(Date);
    expect(found).toEqual(doc);
    expect((found?.nested as { when: Date }).when.getTime()).toBe(at(1).getTime());
  });

  it('filters on Date ranges and Date equality', async () => {
    for (let h = 0; h < 5; h++) await state.items.insertOne({ _id: `h${h}`, at: at(h) });
    expect(ids(await state.items.find({ at: { $gte: at(1), $lt: at(3) } }))).toEqual(['h1', 'h2']);
    expect(ids(await state.items.find({ at: { $gt: at(3) } }))).toEqual(['h4']);
    expect(ids(await state.items.find({ at: at(2) }))).toEqual(['h2']);
    expect(ids(await state.items.find({ at: { $in: [at(0), at(4)] } }))).toEqual(['h0', 'h4']);
  });

  it('sorts by several keys, ascending and descending, then skips and limits', async () => {
    const rows: Item[] = [
      { _id: 'a', group: 'x', n: 2, at: at(3) },
      { _id: 'b', group: 'y', n: 1, at: at(1) },
      { _id: 'c', group: 'x', n: 3, at: at(2) },
      { _id: 'd', group: 'y', n: 5, at: at(0) },
      { _id: 'e', group: 'x', n: 1, at: at(4) },
    ];
    for (const row of rows) await state.items.insertOne(row);
    const order = async (opts: Parameters<DocumentCollection<Item>['find']>[1]) =>
      (await state.items.find({}, opts)).map((d) => d._id);
    expect(await order({ sort: { n: -1, _id: 1 } })).toEqual(['d', 'c', 'a', 'b', 'e']);
    expect(await order({ sort: { group: 1, n: -1 } })).toEqual(['c', 'a', 'e', 'd', 'b']);
    expect(await order({ sort: { group: -1, n: 1 } })).toEqual(['b', 'd', 'e', 'a', 'c']);
    expect(await order({ sort: { at: -1 } })).toEqual(['e', 'a', 'c', 'b', 'd']);
    expect(await order({ sort: { at: 1 }, skip: 1, limit: 2 })).toEqual(['b', 'c']);
    expect(await order({ sort: { _id: 1 }, skip: 3 })).toEqual(['d', 'e']);
    expect(await order({ sort: { _id: -1 }, limit: 1 })).toEqual(['e']);
    expect(await state.items.find({ group: 'x' }, { sort: { n: 1 }, limit: 2 })).toEqual([rows[4], rows[0]]);
  });
}
