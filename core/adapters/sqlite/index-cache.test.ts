/**
 * The SQLite store keeps index specs between operations and reads them again once the index generation (sqlite-sql.ts
 * `INDEX_GENERATION`, selected by every read beside its documents) has changed: an index declared by a second
 * connection or another process applies to the first at once, and commits that declare nothing keep the specs
 * (docs/decisions.md D24 § 3).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from './index.ts';
import { anyShape } from '../../testing/any-shape.ts';
import { expectCode } from '../../testing/document-store-writes.contract.ts';
import { runProcess } from '../../../test/helpers/run-process.ts';

const probe = resolve(import.meta.dirname, 'testdata/sqlite-lock-probe.ts');

/** Declares an index on the file at `path` from another process (the probe's `declare` mode, on Node). */
async function declareElsewhere(path: string, collection: string, keys: object, options: object): Promise<void> {
  const args = ['--experimental-strip-types', probe, path, 'declare', collection, JSON.stringify(keys)];
  const run = await runProcess(process.execPath, [...args, JSON.stringify(options)]);
  expect(run.stdout, run.stderr).toContain('{"declared":true}');
}

describe('index specs across connections', () => {
  it('sees a TTL index another connection declares after this one has read the collection', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cairn-index-cache-')), 'docdb.sqlite');
    const now = new Date('2026-11-23T12:00:00Z');
    const first = await openSqliteDocumentStore({ path, now: () => now });
    const second = await openSqliteDocumentStore({ path, now: () => now });
    try {
      const events = anyShape(first.collection<{ _id: string; at: Date }>('events'));
      await events.insertOne({ _id: 'old', at: new Date('2026-11-01T00:00:00Z') });
      expect(await events.find({})).toHaveLength(1);
      await second.collection('events').createIndex({ at: 1 }, { expireAfterSeconds: 60 });
      expect(await events.find({})).toEqual([]);
      await first.collection('others').createIndex({ at: 1 }, { expireAfterSeconds: 60 });
      expect(await events.countDocuments({})).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("honours another process's TTL index on the next insert of an expired _id, after others' commits", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cairn-index-cache-')), 'docdb.sqlite');
    const now = new Date('2026-11-23T12:00:00Z');
    const first = await openSqliteDocumentStore({ path, now: () => now });
    const second = await openSqliteDocumentStore({ path, now: () => now });
    try {
      const claims = anyShape(first.collection<{ _id: string; at: Date; n?: number }>('claims'));
      await claims.insertOne({ _id: 'c1', at: new Date('2026-11-01T00:00:00Z') });
      await claims.insertOne({ _id: 'c2', at: now });
      expect(await claims.find({})).toHaveLength(2);
      // Another connection's ordinary commits leave the specs this store keeps as they were.
      await anyShape(second.collection<{ _id: string }>('others')).insertOne({ _id: 'o1' });
      await expectCode(claims.insertOne({ _id: 'c1', at: now }), 'duplicate_key');
      await declareElsewhere(path, 'claims', { at: 1 }, { expireAfterSeconds: 60 });
      // c1 has expired under the new index: its _id is free (a store judging by the specs it kept would refuse it).
      await claims.insertOne({ _id: 'c1', at: now, n: 2 });
      expect(await claims.find({}, { sort: { at: -1 }, limit: 5 })).toEqual([
        { _id: 'c2', at: now },
        { _id: 'c1', at: now, n: 2 },
      ]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("honours another process's unique index on this connection's next insert", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cairn-index-cache-')), 'docdb.sqlite');
    const first = await openSqliteDocumentStore({ path });
    try {
      const users = anyShape(first.collection<{ _id: string; email: string }>('users'));
      await users.insertOne({ _id: 'a', email: 'x@example.com' });
      expect(await users.findOne({ email: 'x@example.com' })).toEqual({ _id: 'a', email: 'x@example.com' });
      await declareElsewhere(path, 'users', { email: 1 }, { unique: true });
      await expectCode(users.insertOne({ _id: 'b', email: 'x@example.com' }), 'duplicate_key');
      await expectCode(
        users.updateOne({ _id: 'c' }, { $set: { email: 'x@example.com' } }, { upsert: true }),
        'duplicate_key',
      );
      expect(await users.find({})).toEqual([{ _id: 'a', email: 'x@example.com' }]);
    } finally {
      await first.close();
    }
  });
});
