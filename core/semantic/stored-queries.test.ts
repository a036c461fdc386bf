/**
 * Stored queries are bounded (docs/decisions.md D18 § 4): each expires 30 days after its last use (a replay is a use),
 * one
 * stored before expiry was kept expires 30 days after its creation, and a token keeps its 200 most recently used
 * within 16 MiB of SQL and params.
 * Run against the memory store, the SQLite adapter (its TTL index and read filter) and MongoDB when
 * TEST_DOCDB_URI names a server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMongoDocumentStore } from '../adapters/mongo/index.ts';
import { openSqliteDocumentStore } from '../adapters/sqlite/sqlite-document-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { skipBecause } from '../testing/skip.ts';
import type { SemanticDeps } from './deps.ts';
import { ensureSemanticIndexes } from './projects.ts';
import { collections, semanticSchemaVersion, type StoredQueryRecord } from './records.ts';
import {
  getStoredQuery,
  maxStoredCharsPerToken,
  maxStoredQueriesPerToken,
  storedQueryExpiryDays,
  storeQuery,
} from './stored-queries.ts';

const dayMs = 86_400_000;
const mongoUri = process.env.TEST_DOCDB_URI || undefined;

interface World {
  deps: SemanticDeps;
  advance(ms: number): void;
  docs: DocumentStore;
}
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

type Opener = (now: () => Date) => Promise<DocumentStore>;
const stores: [string, Opener | undefined][] = [
  ['memory', async (now) => createMemoryDocumentStore({ now })],
  ['sqlite', async (now) => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-stored-'));
    const store = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite'), now, purgeIntervalMs: 0 });
    cleanups.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    return store;
  }],
  [
    'mongodb',
    mongoUri === undefined ? undefined : async () => {
      const store = await openMongoDocumentStore({
        uri: mongoUri,
        dbName: `cairn_stored_${process.pid}_${Date.now()}`,
      });
      cleanups.push(async () => {
        await store.close();
      });
      return store;
    },
  ],
];

let counter = 0;
async function world(open: Opener): Promise<World> {
  let now = new Date('2026-11-23T10:00:00Z');
  const docs = await open(() => now);
  await ensureSemanticIndexes(docs);
  const ids = {
    newId: () => `q${(counter += 1)}`,
    randomBytes: (n: number) => new Uint8Array(n),
    sha256Hex: async () => '0'.repeat(64),
  };
  const deps: SemanticDeps = { docs, objects: createMemoryObjectStore(), clock: { now: () => now }, ids };
  return {
    deps,
    docs,
    advance: (ms) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

const query = (tokenId: string, sql = 'SELECT 1') => ({
  projectId: 'p1',
  modelName: 'flights',
  sql,
  params: [] as string[],
  tokenId,
});
const replay = (w: World, id: string) => getStoredQuery(w.deps, 'p1', id, ['flights']);
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: { code: string; message: string }) => error,
  );
}

describe.each(stores)('stored queries on the %s store', (name, open) => {
  it('expire 30 days after their last use, a replay counting as a use', async (ctx) => {
    if (!open) {
      return skipBecause(
        ctx,
        'TEST_DOCDB_URI is not set: no MongoDB server runs here; run TEST_DOCDB_URI=mongodb://… ' +
          `node_modules/.bin/vitest run core/semantic/stored-queries.test.ts (${name})`,
      );
    }
    const w = await world(open);
    const used = await storeQuery(w.deps, query('t1', 'SELECT 1 AS used'));
    const unused = await storeQuery(w.deps, query('t1', 'SELECT 2 AS unused'));
    w.advance(20 * dayMs);
    expect((await replay(w, used)).sql).toBe('SELECT 1 AS used');
    w.advance(storedQueryExpiryDays * dayMs - 10 * dayMs);
    expect((await replay(w, used)).sql).toBe('SELECT 1 AS used');
    const expired = await refusal(replay(w, unused));
    expect(expired.code).toBe('not_found');
    expect(expired.message).toMatch(/expire 30 days after their last use.*run execute_query again/);
    w.advance(storedQueryExpiryDays * dayMs);
    expect((await refusal(replay(w, used))).code).toBe('not_found');
  });

  it('counts a query stored before expiry was kept as used when created, deleted once expired', async (ctx) => {
    if (!open) return skipBecause(ctx, `TEST_DOCDB_URI is not set: no MongoDB server runs here (${name})`);
    const w = await world(open);
    const legacy: StoredQueryRecord = {
      _id: 'legacy',
      schemaVersion: semanticSchemaVersion,
      createdAt: w.deps.clock.now(),
      ...query('t1'),
    };
    const stored = w.docs.collection<StoredQueryRecord>(collections.storedQueries);
    await stored.insertOne(legacy);
    w.advance(dayMs);
    expect((await replay(w, 'legacy')).sql).toBe('SELECT 1');
    expect((await stored.findOne({ _id: 'legacy' }))?.lastUsedAt).toEqual(w.deps.clock.now());
    await stored.insertOne({ ...legacy, _id: 'old-legacy' });
    w.advance(storedQueryExpiryDays * dayMs);
    expect((await refusal(replay(w, 'old-legacy'))).code).toBe('not_found');
    expect(await stored.findOne({ _id: 'old-legacy' })).toBeNull();
  });

  it("keeps each token's 200 most recently used queries and drops the least recently used", async (ctx) => {
    if (!open) return skipBecause(ctx, `TEST_DOCDB_URI is not set: no MongoDB server runs here (${name})`);
    const w = await world(open);
    const otherToken = await storeQuery(w.deps, query('t2'));
    const first: string[] = [];
    for (let n = 1; n <= 10; n += 1) {
      first.push(await storeQuery(w.deps, query('t1', `SELECT ${n}`)));
      w.advance(60_000);
    }
    w.advance(2 * 3_600_000);
    const later: string[] = [];
    for (let n = 11; n <= 225; n += 1) {
      if (n === 121) await replay(w, first[0]);
      later.push(await storeQuery(w.deps, query('t1', `SELECT ${n}`)));
      w.advance(60_000);
    }
    const stored = w.docs.collection<StoredQueryRecord>(collections.storedQueries);
    expect(await stored.countDocuments({ tokenId: 't1' })).toBe(maxStoredQueriesPerToken);
    const dropped = [...first.slice(1), ...later.slice(0, 16)];
    for (const id of dropped) expect((await refusal(replay(w, id))).code).toBe('not_found');
    expect((await replay(w, first[0])).sql).toBe('SELECT 1');
    expect((await replay(w, later[16])).sql).toBe('SELECT 27');
    expect((await replay(w, otherToken)).tokenId).toBe('t2');
  });

  it('keeps at most 16 MiB of SQL and params per token, the most recently used first', async (ctx) => {
    if (!open) return skipBecause(ctx, `TEST_DOCDB_URI is not set: no MongoDB server runs here (${name})`);
    const w = await world(open);
    const ids: string[] = [];
    for (let n = 1; n <= 17; n += 1) {
      const big = { ...query('t1', `SELECT $1 AS big_${n}`), params: ['x'.repeat(1_000_000)] };
      ids.push(await storeQuery(w.deps, big));
      w.advance(60_000);
    }
    const stored = w.docs.collection<StoredQueryRecord>(collections.storedQueries);
    expect(maxStoredCharsPerToken).toBe(16_777_216);
    expect(await stored.countDocuments({ tokenId: 't1' })).toBe(16);
    expect((await refusal(replay(w, ids[0]))).message).toMatch(/16 MiB of SQL and params at most/);
    expect((await replay(w, ids[1])).sql).toBe('SELECT $1 AS big_2');
  });
});
