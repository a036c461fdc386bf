/**
 * The dispatcher's retention sweep (./retention-sweep.ts): of two dispatchers sharing one document store and lease,
 * one sweeps per interval; the sweep removes a finished session past PLATFORM_SESSION_RETENTION_DAYS (with a design
 * chat's record and what it read) and says so in one line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { parseRetentionSettings } from '../../core/config/retention-settings.ts';
import { sessionCollections } from '../../core/session/model.ts';
import { designChatsCollection, designReadsCollection } from '../../core/design/design-runtime.ts';
import { createMemoryLease } from '../../core/testing/memory-lease.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { runRetentionSweep } from './retention-sweep.ts';

it('one of two dispatchers sweeps per interval, removing a finished session past its retention', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-retention-sweep-'));
  const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  try {
    const now = new Date('2026-11-26T00:00:00Z');
    const sessions = docs.collection<{ _id: string } & Record<string, unknown>>(sessionCollections.sessions);
    await sessions.insertOne({ _id: 's-old', schemaVersion: 2, status: 'succeeded', updatedAt: new Date('2026-07-01') });
    await sessions.insertOne({ _id: 's-running', schemaVersion: 2, status: 'running', updatedAt: new Date('2026-07-01') });
    // A design chat of the old session and what it read; and the running session's chat, which stays.
    const chats = docs.collection<{ _id: string; sessionId: string }>(designChatsCollection);
    const reads = docs.collection<{ _id: string; sessionId: string }>(designReadsCollection);
    await chats.insertOne({ schemaVersion: 1, _id: 's-old', sessionId: 's-old' });
    await chats.insertOne({ schemaVersion: 1, _id: 's-running', sessionId: 's-running' });
    await reads.insertOne({ schemaVersion: 1, _id: 's-old\u0000AGENTS.md', sessionId: 's-old' });
    const shared = {
      docs, objects: createMemoryObjectStore(), clock: { now: () => now }, lease: createMemoryLease(),
      retention: parseRetentionSettings({ PLATFORM_SESSION_RETENTION_DAYS: '90' }),
    };
    const lines: string[] = [];
    const first = await runRetentionSweep({ ...shared, owner: 'dispatcher@a', log: (l) => lines.push(l) });
    const second = await runRetentionSweep({ ...shared, owner: 'dispatcher@b', log: (l) => lines.push(l) });
    expect(first).toMatch(new RegExp(String.raw`^retention sweep removed 1 session\(s\) \(0 turn\(s\), 0 message\(s\), `
      + String.raw`2 thread or session key binding\(s\)\) finished over 90 days`));
    expect(second).toBeUndefined();
    expect((await sessions.find({})).map((s) => s._id)).toEqual(['s-running']);
    expect((await chats.find({})).map((c) => c._id)).toEqual(['s-running']);
    expect(await reads.find({})).toEqual([]);
  } finally {
    await docs.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
