/**
 * The SQLite driver's per-connection state: the busy timeout a no-wait call sets is given back before the next
 * statement outside it (so a statement that may wait still waits for another process's lock), and the statement
 * cache keeps the last STATEMENT_CACHE_SIZE texts (docs/decisions.md D24 § 3).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlDriver, type SqlDriver, STATEMENT_CACHE_SIZE } from './sqlite-driver.ts';

const probe = resolve(import.meta.dirname, 'testdata/sqlite-lock-probe.ts');

describe('the SQLite driver', () => {
  let dir: string;
  let driver: SqlDriver;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sqlite-driver-'));
    driver = await openSqlDriver(join(dir, 'docdb.sqlite'), { busyTimeoutMs: 4000 });
  });
  afterEach(async () => {
    driver.close();
    await rm(dir, { recursive: true, force: true });
  });

  const timeout = () => Number(driver.prepare('PRAGMA busy_timeout').get()?.timeout);

  it("runs a no-wait call at its busy timeout and every statement after it at the connection's own", () => {
    const seen = driver.withBusyTimeout(0, () => {
      const inner = driver.withBusyTimeout(7, timeout);
      return [timeout(), inner, timeout()];
    });
    expect(seen).toEqual([0, 7, 0]);
    expect(timeout()).toBe(4000);
    driver.withBusyTimeout(0, () => driver.exec('CREATE TABLE t (x)'));
    driver.withBusyTimeout(0, () => driver.prepare('INSERT INTO t VALUES (1)').run());
    expect(timeout()).toBe(4000);
    expect(() => driver.withBusyTimeout(0, () => driver.exec('not sql'))).toThrow();
    expect(timeout()).toBe(4000);
  });

  it("waits for another process's write lock in a statement run after a no-wait call", async () => {
    const path = join(dir, 'docdb.sqlite');
    driver.exec('CREATE TABLE t (x)');
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
      holder.on('close', (code) => failed(new Error(`the lock holder exited (${code}) before locking: ${output}`)));
    });
    // The no-wait call finds the lock taken at once; the statement after it waits (busy timeout 4 s) for the commit.
    expect(() => driver.withBusyTimeout(0, () => driver.exec('BEGIN IMMEDIATE'))).toThrow(/locked/);
    driver.exec('BEGIN IMMEDIATE');
    driver.prepare('INSERT INTO t VALUES (1)').run();
    driver.exec('COMMIT');
    expect(await exited).toBe(0);
    expect(output).toContain('{"committed":true}');
  });

  it('keeps the statements of the last STATEMENT_CACHE_SIZE texts and prepares an older one again', () => {
    const first = driver.prepare('SELECT 0 AS n');
    expect(driver.prepare('SELECT 0 AS n')).toBe(first);
    for (let n = 1; n <= STATEMENT_CACHE_SIZE; n += 1) driver.prepare(`SELECT ${n} AS n`);
    const last = driver.prepare(`SELECT ${STATEMENT_CACHE_SIZE} AS n`);
    expect(driver.prepare(`SELECT ${STATEMENT_CACHE_SIZE} AS n`)).toBe(last);
    const again = driver.prepare('SELECT 0 AS n');
    expect(again).not.toBe(first);
    expect(again.get()).toEqual({ n: 0 });
  });
});
