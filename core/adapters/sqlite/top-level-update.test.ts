/**
 * Updates of top-level fields (`$set`, `$unset`: a settle, a status) on the SQLite store are applied to a shallow copy
 * instead of through mingo (document-semantics.ts `applyUpdate`): the stored result is the same, with a payload
 * holding hostile keys and Dates kept exactly, a caller's own `__proto__` key kept as data, and `_id` still guarded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import type { Item } from '../../testing/document-store.contract.ts';
import { hostileValue } from '../../testing/document-store-keys.contract.ts';
import { expectCode } from '../../testing/document-store-writes.contract.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { anyShape } from '../../testing/any-shape.ts';

describe('top-level updates (SQLite)', () => {
  let dir: string;
  let store: DocumentStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-update-'));
    store = await openSqliteDocumentStore({ path: join(dir, 'db.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sets and unsets top-level fields and keeps every other field exactly', async () => {
    const claims = anyShape(store.collection<Item>('claims'));
    const claimedAt = new Date('2026-11-26T09:00:00.000Z');
    const own = JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}') as Record<string, unknown>;
    await claims.insertOne({
      _id: 's:d1',
      scope: 's',
      claimedAt,
      status: 'pending',
      extra: own,
      pending: { job: { data: { payload: hostileValue(), at: claimedAt } } },
    });
    const settledAt = new Date('2026-11-26T09:00:05.000Z');
    expect(
      await claims.updateOne({ _id: 's:d1' }, {
        $unset: { pending: true, status: true },
        $set: { settledAt, note: { 'a.b': 1, $x: [claimedAt] } },
      }),
    ).toEqual({ matched: 1, upserted: false });
    const stored = await claims.findOne({ _id: 's:d1' });
    const note = { 'a.b': 1, $x: [claimedAt] };
    expect(stored).toEqual({ _id: 's:d1', scope: 's', claimedAt, extra: own, settledAt, note });
    expect(Object.keys(stored ?? {})).toEqual(['_id', 'scope', 'claimedAt', 'extra', 'settledAt', 'note']);
    expect(stored?.settledAt).toBeInstanceOf(Date);
    expect(Object.getOwnPropertyDescriptor(stored?.extra, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await claims.countDocuments({ status: 'pending' })).toBe(0);
  });

  it('still refuses to change or remove _id', async () => {
    const items = anyShape(store.collection<Item>('items'));
    await items.insertOne({ _id: 'i1', n: 1 });
    await expectCode(items.updateOne({ _id: 'i1' }, { $set: { _id: 'i2' } }), 'invalid_update');
    await expectCode(items.updateOne({ _id: 'i1' }, { $unset: { _id: true } }), 'invalid_update');
    const same = await items.updateOne({ _id: 'i1' }, { $set: { _id: 'i1', n: 2 } });
    expect(same).toEqual({ matched: 1, upserted: false });
    expect(await items.findOne({ _id: 'i1' })).toEqual({ _id: 'i1', n: 2 });
  });
});
