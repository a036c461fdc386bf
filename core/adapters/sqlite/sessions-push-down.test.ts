/**
 * The Sessions page's query on the SQLite document store reads only the listed agents' rows: `agentId: {$in: …}`
 * and `depth: 0` are checked in SQL through the declared index (the indexes the session store declares on agentId at
 * boot, core/session/session-indexes.ts `ensureSessionIndexes`), so another organization's sessions are never read
 * or decoded. The rows the adapter decodes for a find are the rows its pushed-down WHERE returns
 * (sqlite-collection.ts `#matching`): counted here on a second connection, with SQLite's query plan.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';
import { openSqlDriver, type SqlDriver } from './sqlite-driver.ts';
import { dateOrderSql, pushDown, tableFor } from './sqlite-sql.ts';
import { anyShape } from '../../testing/any-shape.ts';

interface Session {
  _id: string;
  orgId: string;
  agentId: string;
  depth: number;
  createdAt: Date;
  startedBy?: string;
}

/** The filter core/session/session-list.ts `findSessions` sends for a member reading `agentIds`. */
const pageFilter = (agentIds: string[], subject: string) => ({
  agentId: { $in: agentIds },
  depth: 0,
  $or: [{ startedBy: { $exists: false } }, { startedBy: subject }],
});

describe('the Sessions page query on SQLite', () => {
  let dir: string;
  let store: DocumentStore;
  let reader: SqlDriver;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sessions-push-down-'));
    store = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
    const sessions = anyShape(store.collection<Session>('sessions'));
    await sessions.createIndex({ agentId: 1, environment: 1, createdAt: -1 });
    await sessions.createIndex({ agentId: 1, environment: 1, workflow: 1, trigger: 1, sessionKey: 1 });
    await sessions.createIndex({ agentId: 1, createdAt: -1 });
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));
    // Organization o1: agent a1, 20 root sessions and 5 child sessions; organization o2: 3 agents, 300 sessions.
    for (let n = 0; n < 25; n += 1) {
      await sessions.insertOne({ _id: `a1-${n}`, orgId: 'o1', agentId: 'a1', depth: n < 20 ? 0 : 1, createdAt: at(n) });
    }
    for (let n = 0; n < 300; n += 1) {
      await sessions.insertOne({ _id: `b-${n}`, orgId: 'o2', agentId: `b${n % 3}`, depth: 0, createdAt: at(n) });
    }
    reader = await openSqlDriver(join(dir, 'docdb.sqlite'));
  });
  afterEach(async () => {
    reader.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps one pair of expression indexes per first field, however many declared indexes start with it', () => {
    const names = reader.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_sessions'")
      .all().map((row) => String(row.name)).filter((name) => name.startsWith('x_'));
    expect(names.sort()).toEqual(['x_sessions_field_agentId_t', 'x_sessions_field_agentId_v']);
  });

  it("reads only the listed agents' root sessions, through the index", async () => {
    const filter = pageFilter(['a1'], 'member-1');
    const { where, params } = pushDown(filter);
    const read = reader.prepare(`SELECT count(*) AS n FROM ${tableFor('sessions')} WHERE ${where}`).get(...params);
    expect(Number(read?.n)).toBe(20);
    const select = `EXPLAIN QUERY PLAN SELECT doc FROM ${tableFor('sessions')} WHERE ${where} ORDER BY rowid`;
    const plan = reader.prepare(select).all(...params).map((row) => String(row.detail));
    const byAgentIndex = /^SEARCH .* USING INDEX x_sessions_field_agentId_v \(<expr>=\?\)/;
    expect(plan.some((step) => byAgentIndex.test(step))).toBe(true);
    expect(plan.filter((step) => /^SCAN /.test(step) && !/USING (COVERING )?INDEX/.test(step))).toEqual([]);
    // Newest first by createdAt: every candidate holds a Date there, so the page is read in that order through SQL and
    // only its first rows are decoded (no candidate fails the guard that sends a find down the full path).
    const ordered = dateOrderSql(tableFor('sessions'), where, 'createdAt', -1);
    if (!ordered) throw new Error('createdAt is a simple field name: dateOrderSql must give SQL for it');
    expect(reader.prepare(ordered.guard).get(...params)).toBeUndefined();
    const firstKeys = reader.prepare(`${ordered.select} LIMIT 3`).all(...params).map((row) => row.k);
    expect(firstKeys).toEqual(['2026-01-01T00:00:19.000Z', '2026-01-01T00:00:18.000Z', '2026-01-01T00:00:17.000Z']);
    const newestFirst = { sort: { createdAt: -1 as const, _id: -1 as const }, limit: 5 };
    const page = await store.collection<Session>('sessions').find(filter, newestFirst);
    expect(page.map((s) => s._id)).toEqual(['a1-19', 'a1-18', 'a1-17', 'a1-16', 'a1-15']);
  });

  it("reads two organizations' agents when the member reads both, and nothing for no agent", async () => {
    const both = pushDown(pageFilter(['a1', 'b2'], 'member-1'));
    const count = (c: ReturnType<typeof pushDown>) =>
      Number(reader.prepare(`SELECT count(*) AS n FROM ${tableFor('sessions')} WHERE ${c.where}`).get(...c.params)?.n);
    expect(count(both)).toBe(120);
    expect(count(pushDown(pageFilter([], 'member-1')))).toBe(0);
    expect(await store.collection('sessions').countDocuments(pageFilter(['a1', 'b2'], 'member-1'))).toBe(120);
  });
});
