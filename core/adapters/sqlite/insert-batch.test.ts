/**
 * Group commit of the SQLite document store's inserts (insert-batch.ts) on a real file: the inserts of one
 * event-loop turn are committed in one transaction (the WAL grows by one commit's pages, not one per insert), in call
 * order (the first of two clashing inserts is stored); a group waits for another connection's write lock without
 * failing; an insert the engine refuses (a trigger raising an error) fails alone while the others are stored.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { Item } from '../../testing/document-store.contract.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { openSqlDriver, type SqlDriver } from './sqlite-driver.ts';
import { anyShape } from '../../testing/any-shape.ts';

const outcome = (s: PromiseSettledResult<unknown>) => {
  if (s.status === 'fulfilled') return 'ok';
  return isPlatformError(s.reason) ? s.reason.code : (s.reason as Error).message;
};

describe('group commit of inserts (SQLite)', () => {
  let dir: string;
  const toClose: Array<SqlDriver | DocumentStore> = [];
  const open = async (name: string) => {
    const store = await openSqliteDocumentStore({ path: join(dir, name) });
    toClose.push(store);
    return store;
  };
  /** Pages appended to the WAL of `name` so far (each frame holds one page). */
  const walFrames = (name: string) => {
    const pageSize = 4096;
    return Math.max(0, statSync(join(dir, `${name}-wal`)).size - 32) / (24 + pageSize);
  };
  const doc = (i: number): Item => ({ _id: `d${i}`, scope: 'hook', claimedAt: new Date(), status: 'pending' });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-batch-'));
  });
  afterEach(async () => {
    for (const handle of toClose.splice(0)) await handle.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits the inserts of one event-loop turn in one transaction', async () => {
    const apart = anyShape((await open('apart.sqlite')).collection<Item>('claims'));
    const together = anyShape((await open('together.sqlite')).collection<Item>('claims'));
    for (const c of [apart, together]) await c.createIndex({ status: 1 });
    const [apartBefore, togetherBefore] = [walFrames('apart.sqlite'), walFrames('together.sqlite')];
    for (let i = 0; i < 20; i += 1) await apart.insertOne(doc(i));
    await Promise.all(Array.from({ length: 20 }, (_, i) => together.insertOne(doc(i))));
    expect(await together.countDocuments({})).toBe(20);
    const oneEach = walFrames('apart.sqlite') - apartBefore;
    const grouped = walFrames('together.sqlite') - togetherBefore;
    // One commit writes each page it changed once: 20 commits write at least 20 × 2 pages (table and index).
    expect(oneEach).toBeGreaterThanOrEqual(40);
    expect(grouped).toBeLessThan(oneEach / 5);
  });

  it('applies a group in call order: of two inserts with one _id or one unique key, the first is stored', async () => {
    const items = anyShape((await open('order.sqlite')).collection<Item>('items'));
    await items.createIndex({ email: 1 }, { unique: true });
    const settled = await Promise.allSettled([
      items.insertOne({ _id: 'a', by: 'first' }),
      items.insertOne({ _id: 'a', by: 'second' }),
      items.insertOne({ _id: 'b', email: 'x@example.com' }),
      items.insertOne({ _id: 'c', email: 'x@example.com' }),
    ]);
    expect(settled.map(outcome)).toEqual(['ok', 'duplicate_key', 'ok', 'duplicate_key']);
    const stored = (await items.find({})).map((d) => [d._id, d.by ?? d.email]);
    expect(stored).toEqual([['a', 'first'], ['b', 'x@example.com']]);
  });

  it("waits for another connection's write lock, then commits the whole group", async () => {
    const store = await open('busy.sqlite');
    const items = anyShape(store.collection<Item>('items'));
    await items.insertOne({ _id: 'seed' });
    const other = await openSqlDriver(join(dir, 'busy.sqlite'));
    toClose.push(other);
    other.exec('BEGIN IMMEDIATE');
    const pending = Promise.allSettled([1, 2, 3].map((i) => items.insertOne(doc(i))));
    // The event loop keeps serving while the group waits: this timer runs, and only then is the lock released.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await items.countDocuments({})).toBe(1);
    other.exec('COMMIT');
    expect((await pending).map(outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(await items.countDocuments({})).toBe(4);
  });

  it('fails only the insert the engine refuses; the others of its group are stored', async () => {
    const store = await open('poison.sqlite');
    const items = anyShape(store.collection<Item>('items'));
    await items.insertOne({ _id: 'seed' });
    const raw = await openSqlDriver(join(dir, 'poison.sqlite'));
    toClose.push(raw);
    raw.exec(`CREATE TRIGGER poison BEFORE INSERT ON c_items WHEN json_extract(NEW.doc, '$.poison') = 1
      BEGIN SELECT RAISE(ABORT, 'poisoned document'); END`);
    const settled = await Promise.allSettled([
      items.insertOne({ _id: 'p1' }),
      items.insertOne({ _id: 'p2', poison: 1 }),
      items.insertOne({ _id: 'p3' }),
    ]);
    expect(settled.map(outcome)).toEqual(['ok', 'poisoned document', 'ok']);
    expect((await items.find({})).map((d) => d._id)).toEqual(['seed', 'p1', 'p3']);
  });
});
