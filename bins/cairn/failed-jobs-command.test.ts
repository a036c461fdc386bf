/**
 * `cairn failed-jobs list` run as the real command (bun on bins/cairn/main.ts) against an embedded document store
 * holding two failure records: newest first, with queue, job, ids and reason; `--json` gives the records; a bad
 * limit is refused with the usage (exit 2).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { recordFailedJob } from '../../core/jobs/failed-jobs.ts';
import { bunPath, repoRoot } from '../../test/helpers/product.ts';

let dir: string;
const cairn = (...args: string[]) => spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), 'failed-jobs', ...args], {
  encoding: 'utf8', env: { ...process.env, DOCDB_URI: `sqlite:${join(dir, 'docdb.sqlite')}`, OBJSTORE_BUCKET: 'cairn' },
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-failed-cli-'));
  const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  const limits = { kept: 10, days: 7 };
  const at = (iso: string) => ({ now: () => new Date(iso) });
  const today = new Date().toISOString().slice(0, 10);
  await recordFailedJob({ docs, clock: at(`${today}T01:00:00Z`) }, {
    queue: 'turns', name: 'turn', id: 'turn-t1', data: { turnId: 't1' }, error: new Error('The worker ended.'),
  }, limits);
  await recordFailedJob({ docs, clock: at(`${today}T02:00:00Z`) }, {
    queue: 'triggers', name: 'webhook', id: 'webhook-d1', data: { deliveryId: 'd1', payload: 'SECRET-BODY' },
    error: new Error('The session key expression failed.'),
  }, limits);
  await docs.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('lists the failure records newest first, without payloads', () => {
  const listed = cairn('list');
  expect(listed.status, listed.stderr).toBe(0);
  const lines = listed.stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/T02:00:00\.000Z {2}triggers webhook webhook-d1 {2}deliveryId=d1 {2}The session key expression/);
  expect(lines[1]).toMatch(/turns turn turn-t1 {2}turnId=t1 {2}The worker ended\./);
  expect(listed.stdout).not.toContain('SECRET-BODY');
  const json = cairn('list', '--limit', '1', '--json');
  expect(JSON.parse(json.stdout)).toMatchObject([{ queue: 'triggers', jobId: 'webhook-d1', ids: { deliveryId: 'd1' } }]);
  const refused = cairn('list', '--limit', '0');
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain('usage: cairn failed-jobs list [--limit N]');
});
