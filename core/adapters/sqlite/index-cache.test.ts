/**
 * The SQLite store keeps index specs between operations and reads them again once another
 * connection has committed: a TTL index declared by a second process applies to the first at once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from './index.ts';
import { anyShape } from '../../testing/any-shape.ts';

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
});
