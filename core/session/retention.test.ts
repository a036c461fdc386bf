/**
 * Session retention (core/session/retention.ts) on the real SQLite document store and the memory object store: a
 * finished session tree older than its retention goes with its turns, messages and files; a tree with a running
 * or parked session, a running or parked session, and a recent one stay; claimed firing ids older than theirs go
 * unless still pending.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { sessionCollections } from './model.ts';
import { ensureRetentionIndexes, sweepSessionRetention } from './retention.ts';
import { sessionKeyClaimsCollection } from './session-key-claims.ts';

/** A stored document with the few fields a test writes. */
type Loose = { _id: string } & Record<string, unknown>;

const DAY = 86_400_000;
const now = new Date('2026-11-26T12:00:00Z');
const clock = { now: () => now };
const ago = (days: number) => new Date(now.getTime() - days * DAY);
let dir: string;
let docs: DocumentStore;
const objects = createMemoryObjectStore();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-retention-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
});
afterEach(async () => {
  await docs.close();
  rmSync(dir, { recursive: true, force: true });
});

type Parent = { parentId: string; rootId: string };
async function session(id: string, status: string, updatedDaysAgo: number, parent?: Parent) {
  await docs.collection<Loose>(sessionCollections.sessions).insertOne({
    _id: id,
    schemaVersion: 2,
    status,
    updatedAt: ago(updatedDaysAgo),
    createdAt: ago(updatedDaysAgo + 1),
    ...parent,
  });
  const turns = docs.collection<Loose>(sessionCollections.turns);
  await turns.insertOne({ _id: `${id}-t`, schemaVersion: 1, sessionId: id, status });
  const messages = docs.collection<Loose>(sessionCollections.messages);
  await messages.insertOne({ _id: `${id}:0`, schemaVersion: 1, sessionId: id, seq: 0 });
  await objects.put(`sessions/${id}/session.json`, new TextEncoder().encode('{}'));
}
const ids = async (name: string) => (await docs.collection(name).find({})).map((d) => d._id).sort();

describe('session retention', () => {
  it('removes a finished tree past its retention with its turns, messages and files; keeps the others', async () => {
    await session('old-done', 'succeeded', 100);
    await session('old-done-child', 'failed', 100, { parentId: 'old-done', rootId: 'old-done' });
    await session('old-with-running-child', 'cancelled', 100);
    const parent = 'old-with-running-child';
    await session('running-child', 'running', 100, { parentId: parent, rootId: parent });
    await session('old-running', 'running', 100);
    await session('old-parked', 'awaiting_input', 100);
    await session('recent-done', 'succeeded', 10);
    const removed = await sweepSessionRetention({ docs, objects, clock }, { sessionDays: 90, deliveryDays: 30 });
    expect(removed).toMatchObject({ sessions: 2, turns: 2, messages: 2 });
    const kept = ['old-parked', 'old-running', 'old-with-running-child', 'recent-done', 'running-child'];
    expect(await ids(sessionCollections.sessions)).toEqual(kept);
    expect(await ids(sessionCollections.turns)).toEqual(kept.map((id) => `${id}-t`).sort());
    expect(await ids(sessionCollections.messages)).toEqual(kept.map((id) => `${id}:0`).sort());
    expect(await objects.list('sessions/old-done')).toEqual([]);
    expect(await objects.list('sessions/recent-done/')).toEqual(['sessions/recent-done/session.json']);
  });

  it("removes a removed tree's session key claims and the bound collections' documents naming it", async () => {
    await session('old-done', 'succeeded', 100);
    await session('recent-done', 'succeeded', 10);
    const claims = docs.collection<Loose>(sessionKeyClaimsCollection);
    const threads = docs.collection<Loose>('agui_threads');
    for (const id of ['old-done', 'recent-done']) {
      await claims.insertOne({ _id: `key/${id}`, schemaVersion: 1, sessionId: id });
      await threads.insertOne({ _id: `thread-${id}`, schemaVersion: 1, sessionId: id });
    }
    await claims.insertOne({ _id: 'key/opening', schemaVersion: 1, sessionId: null });
    await ensureRetentionIndexes(docs, ['agui_threads']);
    const days = { sessionDays: 90, deliveryDays: 30 };
    const removed = await sweepSessionRetention({ docs, clock }, days, { boundCollections: ['agui_threads'] });
    expect(removed).toMatchObject({ sessions: 1, bindings: 2 });
    expect(await ids(sessionKeyClaimsCollection)).toEqual(['key/opening', 'key/recent-done']);
    expect(await ids('agui_threads')).toEqual(['thread-recent-done']);
  });

  it('removes claimed firing ids older than their retention unless still pending', async () => {
    const deliveries = docs.collection<Loose>(sessionCollections.deliveries);
    await deliveries.insertOne({ _id: 'old', schemaVersion: 1, claimedAt: ago(8) });
    await deliveries.insertOne({ _id: 'old-pending', schemaVersion: 1, claimedAt: ago(8), pending: { at: ago(8) } });
    await deliveries.insertOne({ _id: 'recent', schemaVersion: 1, claimedAt: ago(2) });
    const removed = await sweepSessionRetention({ docs, clock }, { sessionDays: 90, deliveryDays: 7 });
    expect(removed.deliveries).toBe(1);
    expect(await ids(sessionCollections.deliveries)).toEqual(['old-pending', 'recent']);
  });
});
