import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { runBunJson } from '../helpers/run-process.ts';
import { anyShape } from '../../core/testing/any-shape.ts';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'test/fixtures/sqlite-bun-smoke.ts');

/** Runs the smoke script under Bun and parses the JSON line it prints. */
const runBun = (args: string[]) => runBunJson([script, ...args]);

describe('SQLite document store on Bun (bun:sqlite)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-bun-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('inserts, finds with an operator, updates and reports a unique violation as duplicate_key', async () => {
    const path = join(dir, 'docdb.sqlite');
    const result = await runBun([path, 'smoke']);
    expect(result).toEqual({
      engine: 'bun',
      olderIds: ['u2'],
      update: { matched: 1, upserted: false },
      uniqueViolation: 'duplicate_key',
      u1: {
        _id: 'u1',
        email: 'a@x',
        age: 31,
        joinedAt: '2026-02-03T04:05:06.007Z',
        profile: { name: 'Ada' },
        joinedAtIsDate: true,
      },
      count: 2,
    });
    // The file Bun wrote reads back under node:sqlite, Dates and unique index included.
    const store = await openSqliteDocumentStore({ path });
    const users = anyShape(store.collection<{ _id: string; joinedAt?: Date; email?: string }>('users'));
    expect((await users.findOne({ _id: 'u1' }))?.joinedAt).toEqual(new Date('2026-02-03T04:05:06.007Z'));
    await expect(users.insertOne({ _id: 'u9', email: 'b@x' })).rejects.toMatchObject({ code: 'duplicate_key' });
    await store.close();
  });

  it('never loses an $inc when a Bun process and this Node process update one document at once', async () => {
    const path = join(dir, 'shared.sqlite');
    const store = await openSqliteDocumentStore({ path });
    const counters = anyShape(store.collection<{ _id: string; n?: number }>('counters'));
    const fromBun = runBun([path, 'inc', '200']);
    for (let i = 0; i < 200; i++) {
      await counters.updateOne({ _id: 'c1' }, { $inc: { n: 1 } }, { upsert: true });
      // Yield to the event loop so the two processes interleave rather than run back to back.
      await new Promise((r) => setImmediate(r));
    }
    expect(await fromBun).toEqual({ done: 200 });
    expect((await counters.findOne({ _id: 'c1' }))?.n).toBe(400);
    await store.close();
  });
});
