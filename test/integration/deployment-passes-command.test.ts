/**
 * `cairn deployment-passes list|apply` as a real process on an SQLite document store: `list` shows every
 * environment's pass and requests nothing; `apply` (limited to one agent with --agent) records a `release`
 * reconciliation request for each of its environments; an agent without environments is refused, naming it.
 * Source: spec/platform-service.md § Trigger deployment (operator tool for the passes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';

let dir: string;
let env: Record<string, string>;
const cairn = (args: string[]) => spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-passes-'));
  env = { DOCDB_URI: `sqlite:${dir}/docdb.sqlite`, OBJSTORE_BUCKET: 'b' };
  const docs = await openSqliteDocumentStore({ path: `${dir}/docdb.sqlite` });
  const environment = (agentId: string, name: string, published: boolean) => ({
    _id: `${agentId}:${name}`, schemaVersion: 1, agentId, orgId: 'o1', name, draftCommit: 'c', draftSavedAt: new Date(), createdAt: new Date(),
    published: published ? { buildId: 'b1', commitId: 'c', objectKey: 'k', counts: { workflows: 1, states: 1, triggers: 1, skills: 0, tests: 0 }, publishedAt: new Date(), publishedBy: 'm' } : null,
  });
  for (const e of [environment('a1', 'main', true), environment('a1', 'staging', false), environment('a2', 'main', true)]) await docs.collection('agent_environments').insertOne(e as never);
  await docs.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cairn deployment-passes', () => {
  it('lists every environment\'s pass without requesting one', () => {
    const listed = cairn(['deployment-passes', 'list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('a1/main: published; never reconciled\na1/staging: nothing published; never reconciled\na2/main: published; never reconciled\n3 environments; run cairn deployment-passes apply to request their passes');
  });

  it('requests the passes of one agent with --agent, and refuses an agent without environments', async () => {
    const applied = cairn(['deployment-passes', 'apply', '--agent', 'a1']);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^a1\/main: published; never reconciled; pass requested$/m);
    expect(applied.stdout).toContain('requested 2 passes (no QUEUE_URL: a running dispatcher\'s retry sweep queues them within 10 minutes)');
    const docs = await openSqliteDocumentStore({ path: `${dir}/docdb.sqlite` });
    const requests = await docs.collection<{ _id: string; reason: string; status: string; reset: boolean }>('trigger_reconciliations').find({}, { sort: { _id: 1 } });
    await docs.close();
    expect(requests.map((r) => [r._id, r.reason, r.status, r.reset])).toEqual([['a1:main', 'release', 'queued', true], ['a1:staging', 'release', 'queued', true]]);
    expect(cairn(['deployment-passes', 'list', '--agent', 'a1']).stdout).toMatch(/^a1\/main: published; last reconciliation queued \(release\) requested /m);

    const none = cairn(['deployment-passes', 'apply', '--agent', 'ghost']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('agent "ghost" has no environment; give an agent id (not a slug)');
    expect(cairn(['deployment-passes', 'run']).status).toBe(2);
  });
});
