import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import { documentStoreContract, type Item } from '../../testing/document-store.contract.ts';
import { expectCode } from '../../testing/document-store-writes.contract.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { anyShape } from '../../testing/any-shape.ts';

documentStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-'));
  const path = join(dir, 'docdb.sqlite');
  const opened: DocumentStore[] = [await openSqliteDocumentStore({ path })];
  return {
    store: opened[0],
    openAnother: async () => {
      opened.push(await openSqliteDocumentStore({ path }));
      return opened[opened.length - 1];
    },
    cleanup: async () => {
      for (const store of opened) await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('openSqliteDocumentStore', () => {
  let dir: string;
  let clock: Date;
  const stores: DocumentStore[] = [];
  const open = async (purgeIntervalMs?: number) => {
    const store = await openSqliteDocumentStore({ path: join(dir, 'db.sqlite'), now: () => clock, purgeIntervalMs });
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-'));
    clock = new Date('2026-05-01T00:00:00.000Z');
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('expires documents by the injected clock and purges them from the file at most once per interval', async () => {
    const store = await open();
    const sessions = anyShape(store.collection<Item>('sessions'));
    await sessions.createIndex({ lastSeenAt: 1 }, { expireAfterSeconds: 60 });
    await sessions.insertOne({ _id: 's1', lastSeenAt: new Date(clock.getTime()) });
    expect(await sessions.countDocuments({})).toBe(1);
    clock = new Date(clock.getTime() + 61_000);
    expect(await sessions.countDocuments({})).toBe(0);
    // Purged from the file, so the _id is free again even for a reader without TTL filtering.
    await sessions.insertOne({ _id: 's1', lastSeenAt: new Date(clock.getTime()) });
    expect(await sessions.countDocuments({})).toBe(1);
  });

  it('reuses the _id of an expired document not purged yet', async () => {
    const store = await open(3_600_000);
    const sessions = anyShape(store.collection<Item>('sessions'));
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 10 });
    await sessions.insertOne({ _id: 'k', at: new Date(clock.getTime()) });
    clock = new Date(clock.getTime() + 11_000);
    await sessions.insertOne({ _id: 'k', at: new Date(clock.getTime()), v: 2 });
    await sessions.updateOne({ _id: 'k' }, { $set: { v: 3 } });
    expect(await sessions.find({})).toEqual([{ _id: 'k', at: clock, v: 3 }]);
  });

  it('sees an index declared by another instance', async () => {
    const one = anyShape((await open()).collection<Item>('users'));
    const two = anyShape((await open()).collection<Item>('users'));
    await one.insertOne({ _id: 'a', email: 'x' });
    await two.createIndex({ email: 1 }, { unique: true });
    await expectCode(one.insertOne({ _id: 'b', email: 'x' }), 'duplicate_key');
  });

  it('refuses an index on the same keys with other options', async () => {
    const users = anyShape((await open()).collection<Item>('users'));
    await users.createIndex({ email: 1 });
    await expectCode(users.createIndex({ email: 1 }, { unique: true }), 'index_conflict');
  });

  it('fails every call after close with store_closed', async () => {
    const store = await open();
    const users = anyShape(store.collection<Item>('users'));
    await store.close();
    await expectCode(users.find({}), 'store_closed');
    await expectCode(users.insertOne({ _id: 'x' }), 'store_closed');
    expect(() => store.collection('users')).toThrow(/closed/);
  });

  it('handles collection names and field names that need quoting', async () => {
    const store = await open();
    const odd = anyShape(store.collection<Item>('we"ird name.with-dots'));
    await odd.createIndex({ "it's": 1 }, { unique: true });
    await odd.insertOne({ _id: 'a', "it's": 'v' });
    await expectCode(odd.insertOne({ _id: 'b', "it's": 'v' }), 'duplicate_key');
    expect(await odd.find({ "it's": 'v' })).toEqual([{ _id: 'a', "it's": 'v' }]);
  });
});
