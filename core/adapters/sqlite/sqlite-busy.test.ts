/**
 * A busy SQLite file: every connection waits for another's write lock (busy timeout, on node:sqlite and
 * bun:sqlite), and the single-dispatcher lease loop survives renewals that fail while another connection
 * holds a long write transaction (docs/decisions.md D6 § 0: a 200 MB call-log write made the dispatcher exit with
 * SQLITE_BUSY while renewing its lease).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dispatcherLeaseName,
  leaseRenewMs,
  leaseRenewRetryMs,
  runDispatcherLease,
} from '../../lease/dispatcher-lease.ts';
import { createDocumentLease } from '../../lease/document-lease.ts';
import type { DocumentStore } from '../../ports/document-store.ts';
import { systemClock } from '../runtime/system.ts';
import { runBunJson } from '../../../test/helpers/run-process.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { openSqlDriver, type SqlDriver, SQLITE_BUSY_TIMEOUT_MS } from './sqlite-driver.ts';
import { anyShape } from '../../testing/any-shape.ts';

const probe = resolve(import.meta.dirname, 'testdata/sqlite-lock-probe.ts');

describe('SQLite busy timeout and a busy database', () => {
  let dir: string;
  let path: string;
  const toClose: Array<SqlDriver | DocumentStore> = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-busy-'));
    path = join(dir, 'docdb.sqlite');
  });
  afterEach(async () => {
    for (const handle of toClose.splice(0)) await handle.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives every connection a busy timeout, on node:sqlite and on bun:sqlite', async () => {
    const driver = await openSqlDriver(path);
    toClose.push(driver);
    expect(driver.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: SQLITE_BUSY_TIMEOUT_MS });
    expect(await runBunJson([probe, path, 'timeout'])).toEqual({
      engine: 'bun:sqlite',
      busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
    });
  });

  it('lets a write wait for another process’s write transaction instead of failing with SQLITE_BUSY', async () => {
    const store = await openSqliteDocumentStore({ path });
    toClose.push(store);
    const holder = spawn(process.execPath, ['--experimental-strip-types', probe, path, 'hold', '300'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => holder.on('close', done));
    await new Promise<void>((locked, failed) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('locked')) locked();
      });
      holder.on(
        'close',
        (code) => failed(new Error(`the lock holder exited (${code}) before taking the lock: ${output}`)),
      );
    });
    await anyShape(store.collection<{ _id: string }>('items')).insertOne({ _id: 'while-locked' });
    expect(await exited).toBe(0);
    expect(output).toContain('{"committed":true}');
    expect(await store.collection<{ _id: string }>('items').findOne({ _id: 'while-locked' })).toEqual({
      _id: 'while-locked',
    });
  });

  it('waits for a write lock another process holds without stopping this process (told to commit)', async () => {
    const args = ['--experimental-strip-types', probe, path, 'hold-until-told'];
    const store = await openSqliteDocumentStore({ path });
    toClose.push(store);
    const items = anyShape(store.collection<{ _id: string; n: number }>('items'));
    const holder = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<number | null>((done) => holder.on('close', done));
    await new Promise<void>((locked, failed) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('locked')) locked();
      });
      holder.on('close', (code) => failed(new Error(`the lock holder exited (${code}) before locking: ${output}`)));
    });
    // Each write finds the file locked. The holder is told to commit only after they were called, from this event
    // loop: a write that waited inside SQLite would hold the loop until its busy timeout and fail.
    const writes = [
      items.insertOne({ _id: 'while-locked', n: 1 }),
      items.updateOne({ _id: 'upserted' }, { $set: { n: 2 } }, { upsert: true }),
      items.deleteMany({ _id: 'absent' }),
    ];
    holder.stdin.write('commit\n');
    expect(await Promise.all(writes)).toEqual([undefined, { matched: 0, upserted: true }, 0]);
    expect(await exited).toBe(0);
    expect(output).toContain('{"committed":true}');
    const stored = await items.find({}, { sort: { n: 1 } });
    expect(stored).toEqual([{ _id: 'while-locked', n: 1 }, { _id: 'upserted', n: 2 }]);
  });

  it('answers a duplicate _id while another process holds the write lock (a retried claim waits)', async () => {
    const store = await openSqliteDocumentStore({ path, busyTimeoutMs: 60_000 });
    toClose.push(store);
    const claims = anyShape(store.collection<{ _id: string; at?: Date }>('claims'));
    await claims.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
    await claims.insertOne({ _id: 'delivery-1', at: new Date() });
    const args = ['--experimental-strip-types', probe, path, 'hold-until-told'];
    const holder = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => holder.on('close', done));
    await new Promise<void>((locked) =>
      holder.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) locked();
      })
    );
    // Told to commit only once the duplicate was answered: a duplicate that needed the lock would wait for 60 s.
    const answer = await claims.insertOne({ _id: 'delivery-1', at: new Date() })
      .then(() => 'taken', (error: Error & { code?: string }) => error.code);
    holder.stdin.write('commit\n');
    expect(answer).toBe('duplicate_key');
    expect(await exited).toBe(0);
  });

  it('keeps the dispatcher lease while another connection holds a write transaction through a renewal', async () => {
    const writer = await openSqlDriver(path);
    const store = await openSqliteDocumentStore({ path, busyTimeoutMs: 20 });
    const observer = await openSqliteDocumentStore({ path });
    toClose.push(store, observer, writer);
    writer.exec('CREATE TABLE IF NOT EXISTS call_log (id INTEGER PRIMARY KEY, doc TEXT)');
    const seen = createDocumentLease(observer, systemClock);
    const lines: string[] = [];
    const events: string[] = [];
    const holders: Array<string | null> = [];
    let step = 0;
    await runDispatcherLease({
      lease: createDocumentLease(store, systemClock),
      owner: 'dispatcher-a',
      clock: systemClock,
      log: (line) => lines.push(line),
      sleep: async (ms) => {
        step += 1;
        events.push(`sleep ${ms}`);
        if (step === 1) { // a large write begins and is still running when the renewal comes
          writer.exec('BEGIN IMMEDIATE');
          writer.prepare('INSERT INTO call_log (doc) VALUES (?)').run('x'.repeat(1 << 20));
        }
        if (step === 2) writer.exec('COMMIT');
        holders.push(await seen.holder(dispatcherLeaseName));
        return true;
      },
      onAcquired: async () => {
        events.push('acquired');
      },
      onLost: async () => {
        events.push('lost');
      },
      stopping: () => step >= 3,
    });
    expect(events).toEqual([
      'acquired',
      `sleep ${leaseRenewMs}`,
      `sleep ${leaseRenewRetryMs}`,
      `sleep ${leaseRenewMs}`,
    ]);
    expect(lines.filter((l) => l.startsWith('renewing the single-dispatcher lease failed'))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith('renewing'))).toMatch(
      new RegExp(
        String.raw`^renewing the single-dispatcher lease failed \(.*database is locked.*\); ` +
          String.raw`retrying in 2 s, the lease lapses in \d+ s$`,
      ),
    );
    expect(holders.at(-1)).toBe('dispatcher-a');
    expect(lines.at(-1)).toBe('released the single-dispatcher lease');
  });
});
