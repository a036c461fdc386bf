/**
 * `cairn data-updates list|apply` on a SQLite document store file and the in-memory lease.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataUpdatesCommand, type DataUpdatesCommandOptions } from '../../bins/cairn/data-updates-command.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { StoredDocument } from '../../core/data-update/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { createMemoryLease } from '../../core/testing/memory-lease.ts';
import { sessionsRelease } from '../fixtures/data-update-world.ts';
import { anyShape } from '../../core/testing/any-shape.ts';

let dir: string;
let docs: DocumentStore;
let lines: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-data-updates-command-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  lines = [];
  const sessions = docs.collection<StoredDocument>('sessions');
  await sessions.insertOne({ _id: 's1', schemaVersion: 1, title: 'a' });
  await sessions.insertOne({ _id: 's2', schemaVersion: 2, title: 'b' });
});
afterEach(async () => {
  await docs.close();
  await rm(dir, { recursive: true, force: true });
});

function options(action: 'list' | 'apply', extra: Partial<DataUpdatesCommandOptions> = {}): DataUpdatesCommandOptions {
  return {
    action, docs, lease: createMemoryLease(), clock: { now: () => new Date('2026-03-01T00:00:00Z') },
    sleep: async () => {}, owner: 'cairn data-updates@test', release: sessionsRelease(), allowNewerData: false,
    log: (line) => lines.push(line), ...extra,
  };
}

describe('cairn data-updates', () => {
  it('list reports pending updates oldest first and changes nothing', async () => {
    const result = await dataUpdatesCommand(options('list'));
    expect(lines).toEqual([
      'pending: sessions 1→2 adds startedBy: 1 documents',
      'pending: sessions 2→3 renames title to name: 2 documents',
      '2 pending data updates; back up the database, then run cairn data-updates apply (or start the new release)',
    ]);
    expect(result.applied).toEqual([]);
    expect(await docs.collection('sessions').countDocuments({ schemaVersion: 3 })).toBe(0);
  });

  it('list shows the refusal a boot would stop with', async () => {
    await anyShape(docs.collection<StoredDocument>('sessions')).insertOne({ _id: 's3' });
    const result = await dataUpdatesCommand(options('list'));
    expect(lines[0]).toMatch(/^\[data-updates\] refusing to start: collection sessions holds 1 documents without a schemaVersion/);
    expect(lines.at(-1)).toMatch(/; a boot would refuse to start \(see above\)$/);
    expect(result.refusals).toHaveLength(1);
  });

  it('apply applies them as a boot would, with the [data-updates] lines', async () => {
    const result = await dataUpdatesCommand(options('apply'));
    expect(lines).toEqual([
      expect.stringMatching(/^\[data-updates\] sessions 1→2 adds startedBy: 1 documents in \d+ ms$/),
      expect.stringMatching(/^\[data-updates\] sessions 2→3 renames title to name: 2 documents in \d+ ms$/),
      'applied 2 data updates',
    ]);
    expect(result.applied).toHaveLength(2);
    expect(await docs.collection('sessions').countDocuments({ schemaVersion: 3 })).toBe(2);
    lines = [];
    await dataUpdatesCommand(options('apply'));
    expect(lines).toEqual(['no data updates applied by this run: nothing was pending']);
  });

  it('apply refuses unreadable data like a boot', async () => {
    await docs.collection<StoredDocument>('sessions').insertOne({ _id: 's9', schemaVersion: 7 });
    await expect(dataUpdatesCommand(options('apply'))).rejects.toMatchObject({ code: 'data_refused', message: expect.stringMatching(/^\[data-updates\] refusing to start: collection sessions holds 1 documents at version 7/) });
    const allowed = await dataUpdatesCommand(options('apply', { allowNewerData: true }));
    expect(allowed.applied).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[data-updates\] warning: PLATFORM_ALLOW_NEWER_DATA=true/);
  });
});
