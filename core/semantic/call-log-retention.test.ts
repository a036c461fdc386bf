/**
 * Call log retention (core/semantic/call-log-retention.ts) on the real SQLite document store: entries older than
 * the retention go, newer ones stay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import { sweepCallLog } from './call-log-retention.ts';
import { collections } from './records.ts';

/** A stored document with the few fields a test writes. */
type Loose = { _id: string } & Record<string, unknown>;

it('removes call log entries older than the retention days', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-call-log-'));
  const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  try {
    const now = new Date('2026-11-26T00:00:00Z');
    const log = docs.collection<Loose>(collections.callLog);
    for (const days of [1, 6, 8, 20]) {
      await log.insertOne({ _id: `c${days}`, schemaVersion: 1, at: new Date(now.getTime() - days * 86_400_000) });
    }
    expect(await sweepCallLog({ docs, clock: { now: () => now } }, 7)).toBe(2);
    expect((await log.find({})).map((d) => d._id).sort()).toEqual(['c1', 'c6']);
  } finally {
    await docs.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
