/**
 * Concurrent insert cases of the DocumentStore contract: inserts a store takes at once (a burst of webhook claims;
 * the SQLite adapter commits them together) are each answered on their own: of two with one `_id`, exactly one is
 * stored and the other is answered `duplicate_key`; an insert clashing on a unique index fails alone. Registered by
 * `documentStoreContract` in document-store.contract.ts.
 *
 * Source: docs/architecture.md § Ports and adapters, contracts.
 */
import { expect, it } from 'vitest';
import { isPlatformError } from '../ports/platform-error.ts';
import { type ContractState, ids } from './document-store-writes.contract.ts';

/** Each settled result as `ok` or its PlatformError code (anything else is kept as it is, so a test shows it). */
const outcomes = (settled: PromiseSettledResult<unknown>[]) =>
  settled.map((s) => {
    if (s.status === 'fulfilled') return 'ok';
    return isPlatformError(s.reason) ? s.reason.code : s.reason;
  });

/** Registers the concurrent insert cases on `state`. */
export function registerConcurrentCases(state: ContractState): void {
  it('answers each of concurrent inserts on its own: of two with one _id exactly one is stored', async () => {
    const settled = await Promise.allSettled([
      state.items.insertOne({ _id: 'c1', by: 'first' }),
      state.items.insertOne({ _id: 'c2', by: 'other' }),
      state.items.insertOne({ _id: 'c1', by: 'second' }),
      state.items.insertOne({ _id: 'c3', by: 'other' }),
    ]);
    const [first, c2, second, c3] = outcomes(settled);
    expect([c2, c3]).toEqual(['ok', 'ok']);
    expect([first, second].sort()).toEqual(['duplicate_key', 'ok']);
    expect(ids(await state.items.find({}))).toEqual(['c1', 'c2', 'c3']);
    const stored = await state.items.findOne({ _id: 'c1' });
    expect(stored?.by).toBe(first === 'ok' ? 'first' : 'second');
  });

  it('fails only the concurrent insert that clashes on a unique index; the others are stored', async () => {
    await state.items.createIndex({ email: 1 }, { unique: true });
    await state.items.insertOne({ _id: 'u0', email: 'ada@example.com' });
    const settled = await Promise.allSettled([
      state.items.insertOne({ _id: 'u1', email: 'bob@example.com' }),
      state.items.insertOne({ _id: 'u2', email: 'ada@example.com' }),
      state.items.insertOne({ _id: 'u3', email: 'cy@example.com' }),
    ]);
    expect(outcomes(settled)).toEqual(['ok', 'duplicate_key', 'ok']);
    expect(ids(await state.items.find({}))).toEqual(['u0', 'u1', 'u3']);
  });
}
