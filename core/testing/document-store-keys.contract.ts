/**
 * Key cases of the DocumentStore contract: any key a caller or a model sends (`$date`, `$where`, `$set`, `$oid`,
 * `$ref`, `a.b`, `__proto__`, the empty key, the stores' own escape marker) round-trips exactly through insert,
 * `$set` and upsert, next to real Dates, and the platform's own fields stay queryable. Registered by
 * `documentStoreContract` in document-store.contract.ts.
 *
 * Source: docs/decisions.md D17 § 8 (hostile but valid input is stored losslessly); docs/architecture.md § Ports and
 * adapters,
 * contracts.
 */
import { expect, it } from 'vitest';
import type { ContractState, Item } from './document-store-writes.contract.ts';

/** A caller's value holding every kind of key the stores must keep (JSON.parse keeps `__proto__` as an own key). */
export function hostileValue(): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify({
      when: { $date: 'tomorrow' },
      at: { $date: '2026-01-02T03:04:05.000Z' },
      $where: 'sleep(1000)',
      $set: { admin: true },
      $oid: '5f1d7f0e8b3c4a2d1e0f9a8b',
      ref: { $ref: 'users', $id: 'u1' },
      'a.b': { 'c.d': 1, '.': 2, '..x.': 3 },
      '': 'empty key',
      '%2E': 'looks escaped',
      '\uFF04date': 'the marker itself',
      '\uFF04': 'the marker alone',
      list: [{ $in: [1, 2] }, { 'x.y': [{ $gt: 0 }] }],
      nested: { deeper: { $unset: '', 'q.r': null } },
    }).replace('"nested"', '"__proto__":{"polluted":true},"nested"'),
  ) as Record<string, unknown>;
}

/** Asserts that `value` holds exactly the keys and values of {@link hostileValue}, `__proto__` as an own key. */
function expectHostile(value: unknown): void {
  expect(value).toEqual(hostileValue());
  const record = value as Record<string, unknown>;
  expect(Object.keys(record)).toEqual(Object.keys(hostileValue()));
  expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toEqual({ polluted: true });
  expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** Registers the key cases on `state`. */
export function registerKeyCases(state: ContractState): void {
  it(
    'round-trips any key a caller sends ($date, $where, dotted, __proto__, empty) through insert, ' +
      'exactly',
    async () => {
      const when = new Date('2026-05-06T07:08:09.010Z');
      await state.items.insertOne({ _id: 'k1', kind: 'hook', trigger: hostileValue(), when });
      const found = await state.items.findOne({ _id: 'k1' });
      expectHostile(found?.trigger);
      expect(found?.when).toEqual(when);
      expect(found?.when).toBeInstanceOf(Date);
    },
  );

  it('round-trips such keys through $set and upsert, and the document stays updatable', async () => {
    await state.items.insertOne({ _id: 'k2', status: 'running' });
    expect(
      await state.items.updateOne({ _id: 'k2' }, {
        $set: { trigger: hostileValue(), 'result.body': hostileValue() },
      }),
    ).toEqual({ matched: 1, upserted: false });
    const updated = await state.items.findOne({ _id: 'k2' });
    expectHostile(updated?.trigger);
    expectHostile((updated?.result as Item).body);
    expect(await state.items.updateOne({ _id: 'k2', status: 'running' }, { $set: { status: 'succeeded' } }))
      .toEqual({ matched: 1, upserted: false });
    expect((await state.items.findOne({ _id: 'k2' }))?.status).toBe('succeeded');
    await state.items.updateOne({ _id: 'k3' }, { $set: { vars: hostileValue() } }, { upsert: true });
    expectHostile((await state.items.findOne({ _id: 'k3' }))?.vars);
  });

  it(
    "keeps the platform's own fields queryable next to such keys, " +
      'and such values never match as operators',
    async () => {
      await state.items.insertOne({ _id: 'q1', kind: 'hook', trigger: hostileValue() });
      await state.items.insertOne({ _id: 'q2', kind: 'other', trigger: { plain: true } });
      expect((await state.items.find({ kind: 'hook' })).map((d) => d._id)).toEqual(['q1']);
      expect((await state.items.find({ 'trigger.plain': true })).map((d) => d._id)).toEqual(['q2']);
      expect(await state.items.countDocuments({ trigger: { $exists: true } })).toBe(2);
      expectHostile((await state.items.find({ kind: 'hook' }, { sort: { _id: 1 }, limit: 1 }))[0]?.trigger);
    },
  );
}
