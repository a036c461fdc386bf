/**
 * A process killed (SIGKILL) in the middle of a slow data update leaves every document whole at the
 * old or the new version; the next boot waits for the dead holder's lock to lapse, then continues
 * with the documents not yet rewritten. Real SQLite file, real redis-server lease, Bun processes.
 *
 * Source: spec/platform-service.md § Data update at boot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { StoredDocument } from '../../core/data-update/index.ts';
import { brokenReason, PEOPLE, seedPerson } from '../fixtures/data-update-release.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { anyShape } from '../../core/testing/any-shape.ts';

const root = resolve(import.meta.dirname, '../..');
const bun = join(root, 'node_modules/.bin/bun');
const worker = join(root, 'test/fixtures/data-update-worker.ts');
const TOTAL = 60;
const LOCK_TTL_MS = 2_000;

let redis: RunningRedis;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'cairn-data-update-kill-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts the worker; `output` collects its standard output. */
function startWorker(path: string, owner: string, sleepMs: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(bun, [worker, path, redis.url, owner, String(sleepMs), String(LOCK_TTL_MS), '200'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => out, exited };
}

it('a process killed mid-update leaves nothing broken and the next boot finishes the update', async () => {
  const path = join(dir, 'docdb.sqlite');
  const docs = await openSqliteDocumentStore({ path });
  const people = anyShape(docs.collection<StoredDocument>(PEOPLE));
  for (let i = 0; i < TOTAL; i++) await people.insertOne(seedPerson(i));

  const first = startWorker(path, 'worker-killed', 40);
  const deadline = Date.now() + 30_000;
  while ((await people.countDocuments({ schemaVersion: 2 })) < 10) {
    if (Date.now() > deadline) throw new Error(`the update never started: ${first.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  first.child.kill('SIGKILL');
  await first.exited;

  const afterKill = await people.find({}, { sort: { _id: 1 } });
  expect(afterKill).toHaveLength(TOTAL);
  expect(afterKill.map(brokenReason).filter(Boolean)).toEqual([]);
  const rewritten = afterKill.filter((d) => d.schemaVersion === 2).length;
  expect(rewritten).toBeGreaterThanOrEqual(10);
  expect(rewritten).toBeLessThan(TOTAL);
  expect(first.output()).not.toContain('splits name');
  expect(redis.cli('GET', 'cairn:lease:data-updates').trim()).toBe('worker-killed');

  const second = startWorker(path, 'worker-next', 0);
  expect(await second.exited).toBe(0);
  const lines = second.output().trim().split('\n');
  expect(lines[0]).toBe('[data-updates] waiting for another process to finish data updates (held by worker-killed)');
  expect(lines.at(-2)).toMatch(new RegExp(`^\\[data-updates\\] people 1→2 splits name into first and last: ${TOTAL - rewritten} documents in \\d+ ms$`));
  expect(lines.at(-1)).toBe(JSON.stringify({ done: TOTAL - rewritten }));

  const final = await people.find({}, { sort: { _id: 1 } });
  expect(final).toHaveLength(TOTAL);
  expect(final.map(brokenReason).filter(Boolean)).toEqual([]);
  expect(final.every((d) => d.schemaVersion === 2)).toBe(true);
  expect(redis.cli('GET', 'cairn:lease:data-updates').trim()).toBe('');

  const third = startWorker(path, 'worker-idle', 0);
  expect(await third.exited).toBe(0);
  expect(third.output().trim()).toBe(JSON.stringify({ done: 0 }));
  await docs.close();
});
