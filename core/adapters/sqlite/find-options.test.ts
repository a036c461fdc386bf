/**
 * A find whose skip or limit is not a whole number ≥ 0 is refused by the embedded stores (SQLite and the
 * in-memory fake that shares its semantics) and by the MongoDB adapter (only with TEST_DOCDB_URI: no
 * server runs here; skipped visibly otherwise), never read as "no limit": a NaN limit once returned every
 * document (docs/decisions.md D6 § 3, `GET …/calls?limit=abc`).
 *
 * Source: core/ports/document-store.ts (FindOptions); docs/decisions.md D6 § 3.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import { isPlatformError } from '../../ports/platform-error.ts';
import { createMemoryDocumentStore } from '../../testing/memory-document-store.ts';
import { openMongoDocumentStore } from '../mongo/index.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { anyShape } from '../../testing/any-shape.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const stores: [string, () => Promise<DocumentStore>][] = [
  ['sqlite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-find-options-'));
    const store = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
    cleanups.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    return store;
  }],
  ['memory fake', async () => createMemoryDocumentStore()],
];
const mongoUri = process.env.TEST_DOCDB_URI;
const mongo: [string, () => Promise<DocumentStore>][] = [[
  `mongodb${mongoUri === undefined ? ' (skipped: TEST_DOCDB_URI is not set, no MongoDB server runs here)' : ''}`,
  async () => {
    const store = await openMongoDocumentStore({ uri: mongoUri ?? '' });
    const items = anyShape(store.collection('items'));
    await items.deleteMany({});
    cleanups.push(async () => {
      await items.deleteMany({});
      await store.close();
    });
    return store;
  },
]];

describe.each(stores)('find options on %s', (_name, open) => findOptionCases(open));
describe.skipIf(mongoUri === undefined).each(mongo)('find options on %s', (_name, open) => findOptionCases(open));

function findOptionCases(open: () => Promise<DocumentStore>): void {
  it('refuses a NaN, negative, fractional or infinite skip or limit, naming the option', async () => {
    const items = anyShape((await open()).collection<{ _id: string; n: number }>('items'));
    for (let n = 0; n < 5; n += 1) await items.insertOne({ _id: `i${n}`, n });
    for (
      const [name, value] of [
        ['limit', Number.NaN],
        ['limit', -1],
        ['limit', 2.5],
        ['limit', Number.POSITIVE_INFINITY],
        ['skip', Number.NaN],
        ['skip', -3],
      ] as const
    ) {
      const error = await items.find({}, { [name]: value }).then(() => undefined, (e: unknown) => e);
      expect(isPlatformError(error, 'invalid_find_options'), `${name}=${value}`).toBe(true);
      expect((error as Error).message).toContain(`find option ${name} must be a whole number`);
    }
  });

  it('keeps whole limits and skips, and 0 as no limit', async () => {
    const items = anyShape((await open()).collection<{ _id: string; n: number }>('items'));
    for (let n = 0; n < 5; n += 1) await items.insertOne({ _id: `i${n}`, n });
    expect((await items.find({}, { sort: { n: 1 }, skip: 1, limit: 2 })).map((d) => d.n)).toEqual([1, 2]);
    expect(await items.find({}, { limit: 0 })).toHaveLength(5);
  });
}
