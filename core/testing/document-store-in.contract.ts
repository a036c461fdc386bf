/**
 * `$in` and equality cases of the DocumentStore contract: the answers a store must give whatever it narrows in its
 * own query language first (the SQLite adapter pushes string `$in` and string or number equalities down to SQL):
 * a field holding an array matches when an element does, a string never matches a number or a boolean, an empty
 * list matches nothing, `null` in a list matches a missing field, and an index on the field changes no answer; a find
 * sorted by a Date with a limit (the adapter reads it in the Date's order) keeps ties and the full sort's order, and
 * a field holding other values than Dates sorts as MongoDB sorts it.
 * Registered by `documentStoreContract` in document-store.contract.ts.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore: MongoDB query semantics on every adapter).
 */
import { expect, it } from 'vitest';
import { type ContractState, ids, type Item } from './document-store-writes.contract.ts';

const SESSIONS: Item[] = [
  { _id: 's1', agentId: 'a1', orgId: 'o1', depth: 0, status: 'running' },
  { _id: 's2', agentId: 'a2', orgId: 'o1', depth: 1, status: 'completed' },
  { _id: 's3', agentId: 'b1', orgId: 'o2', depth: 0, status: 'running' },
  { _id: 's4', agentId: ['a1', 'b1'], orgId: 'o2', depth: [0, 2] },
  { _id: 's5', agentId: 7, depth: true, status: null },
  { _id: 's6', agentId: '7', depth: 0.0, status: { nested: 'running' } },
];

/** Registers the cases on the contract's `items` collection (see the module comment). */
export function registerInCases(state: ContractState): void {
  for (const indexed of [false, true]) {
    const label = indexed ? 'with an index on the fields' : 'without an index';
    registerEqualityCases(state, indexed, label);
    registerDateLimitCase(state, indexed, label);
  }
}

/** Inserts {@link SESSIONS}, after indexes on `agentId` and `depth` when `indexed`. */
async function seedSessions(state: ContractState, indexed: boolean): Promise<void> {
  if (indexed) {
    await state.items.createIndex({ agentId: 1, createdAt: -1 });
    await state.items.createIndex({ depth: 1 });
  }
  for (const session of SESSIONS) await state.items.insertOne(session);
}

/** `$in` of strings and number equalities, with or without an index (`label` says which). */
function registerEqualityCases(state: ContractState, indexed: boolean, label: string): void {
  it(`matches $in of strings as MongoDB does, ${label}`, async () => {
    await seedSessions(state, indexed);
    const found = async (filter: Record<string, unknown>) => ids(await state.items.find(filter));
    expect(await found({ agentId: { $in: ['a1', 'a2'] } })).toEqual(['s1', 's2', 's4']);
    expect(await found({ agentId: { $in: ['b1'] } })).toEqual(['s3', 's4']);
    expect(await found({ agentId: { $in: ['7'] } })).toEqual(['s6']);
    expect(await found({ agentId: { $in: [7] } })).toEqual(['s5']);
    expect(await found({ agentId: { $in: [] } })).toEqual([]);
    expect(await found({ status: { $in: [null, 'completed'] } })).toEqual(['s2', 's4', 's5']);
    expect(await found({ status: { $in: ['running'] } })).toEqual(['s1', 's3']);
    expect(await found({ agentId: { $in: ['a1', 'b1'] }, orgId: 'o2' })).toEqual(['s3', 's4']);
    expect(await state.items.countDocuments({ agentId: { $in: ['a1', 'zz'] } })).toBe(2);
  });
  it(`matches number equalities as MongoDB does (never a boolean or a string), ${label}`, async () => {
    await seedSessions(state, indexed);
    const found = async (filter: Record<string, unknown>) => ids(await state.items.find(filter));
    expect(await found({ depth: 0 })).toEqual(['s1', 's3', 's4', 's6']);
    expect(await found({ depth: { $eq: 1 } })).toEqual(['s2']);
    expect(await found({ depth: 2 })).toEqual(['s4']);
    expect(await found({ agentId: { $in: ['a1', 'a2', 'b1'] }, depth: 0 })).toEqual(['s1', 's3', 's4']);
    const filter = { agentId: { $in: ['a1', 'b1'] }, depth: 0 };
    const page = await state.items.find(filter, { sort: { _id: -1 }, limit: 2 });
    expect(page.map((d) => d._id)).toEqual(['s4', 's3']);
  });
}

/** A find sorted by a Date with a limit, with or without an index (`label` says which). */
function registerDateLimitCase(state: ContractState, indexed: boolean, label: string): void {
  it(`sorts by a Date with a limit as the full sort does (ties, skip, other values), ${label}`, async () => {
    if (indexed) await state.items.createIndex({ kind: 1, at: -1 });
    const day = (d: number) => new Date(Date.UTC(2026, 0, d));
    const rows: Item[] = [
      { _id: 'd1', kind: 'k', at: day(2) },
      { _id: 'd2', kind: 'k', at: day(1) },
      { _id: 'd3', kind: 'k', at: day(3) },
      { _id: 'd4', kind: 'k', at: day(2) },
      { _id: 'd5', kind: 'x', at: day(9) },
      { _id: 'd6', kind: 'k', at: day(2) },
      { _id: 'm1', kind: 'm', at: day(5) },
      { _id: 'm2', kind: 'm' },
      { _id: 'm3', kind: 'm', at: null },
      { _id: 'm4', kind: 'm', at: 7 },
      { _id: 'm5', kind: 'm', at: 'text' },
      { _id: 'm6', kind: 'm', at: day(4) },
    ];
    for (const row of rows) await state.items.insertOne(row);
    const order = async (filter: Record<string, unknown>, sort: Record<string, 1 | -1>, limit: number, skip = 0) =>
      (await state.items.find(filter, { sort, limit, skip })).map((d) => d._id);
    expect(await order({ kind: 'k' }, { at: -1, _id: 1 }, 2)).toEqual(['d3', 'd1']);
    expect(await order({ kind: 'k' }, { at: -1, _id: -1 }, 3)).toEqual(['d3', 'd6', 'd4']);
    expect(await order({ kind: 'k' }, { at: 1, _id: 1 }, 2, 1)).toEqual(['d1', 'd4']);
    expect(await order({ kind: { $in: ['k', 'x'] } }, { at: -1, _id: 1 }, 1)).toEqual(['d5']);
    expect(await order({ kind: 'm' }, { at: 1, _id: 1 }, 4)).toEqual(['m2', 'm3', 'm4', 'm5']);
    expect(await order({ kind: 'm' }, { at: -1, _id: 1 }, 2)).toEqual(['m1', 'm6']);
  });
}
