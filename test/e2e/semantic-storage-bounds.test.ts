/**
 * End to end through the front proxy: what a caller can make the semantic service store is bounded (docs/decisions.md
 * D18 § 4)
 * and SQL holding NUL is refused before anything is logged as run (§ 6). Params beyond the placeholders are
 * refused; a stored query expires 30 days after its last use and a token keeps its 200 most recently used; the
 * call log keeps an unknown tool name as a 64-character excerpt, so Monitoring's list stays small; a token may
 * submit 20 improvement requests a day. The reproductions are the issue's, driven with the MCP SDK client or curl's
 * equivalent (fetch); an expired query is made by moving its last use back 31 days in the product's own store.
 *
 * Source: spec/semantic-query-service.md § Tools, § Resources (call log entry); docs/decisions.md D18 § 4, §
 * 6.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { mcpClient, projectDir, textOf } from '../helpers/semantic-fixtures.ts';

const fixture = join(repoRoot, 'test/fixtures/semantic/attack/public_notes.yaml');
const slug = 'bounds';
let product: RunningProduct;
let endpoint: string;
const tokens: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  // Hundreds of calls from one address: the per-address limit is not what these tests are about.
  product = await startProduct({ MCP_RATE_LIMIT_MAX: '5000' });
  const dir = projectDir([fixture]);
  copyFileSync(join(repoRoot, 'test/fixtures/semantic/attack/items.csv'), join(dir, 'data', 'items.csv'));
  const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', slug, '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  endpoint = `${product.url}/mcp/${slug}/mcp`;
  for (let n = 0; n < 3; n += 1) {
    const created = runCairn(product.url, ['semantic', 'token', 'create', slug, '--models', 'public_notes']);
    expect(created.status, created.stderr).toBe(0);
    tokens.push(created.stdout.trim());
    clients.push(await mcpClient(endpoint, tokens[n]));
  }
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await product?.stop();
});

const modelName = 'public_notes';
const run = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
const query = (client: Client, sql: string, extra: Record<string, unknown> = {}) =>
  run(client, 'execute_query', { modelName, sql, ...extra });
/** The JSON answer of a query tool (its text item). */
const answerOf = (result: object) => JSON.parse(textOf(result)) as { rows: unknown[][]; storedQueryId?: string };

/** The product's own document store (SQLite), opened beside it for what only time would otherwise do. */
function withStore<T>(work: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(product.dataDir, 'docdb.sqlite'));
  db.exec('PRAGMA busy_timeout = 5000');
  try {
    return work(db);
  } finally {
    db.close();
  }
}

interface LoggedCall { tool: string; status: string; input: { sql?: string } }
/** GET …/calls through the proxy (dev-user sign-in): the answer's size and body. */
async function callLog(limit = 500): Promise<{ bytes: number; body: { calls: LoggedCall[]; tools: string[] } }> {
  const response = await fetch(`${product.url}/api/semantic/projects/${slug}/calls?limit=${limit}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

/** The call log once `found` holds (entries are written just after each answer). */
async function logWhere(found: (calls: LoggedCall[]) => boolean) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const log = await callLog();
    if (found(log.body.calls)) return log;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the call log never showed the expected entry');
}

describe('execute_query params', () => {
  it('refuses params beyond the placeholders, saying how many the SQL uses, and stores nothing', async () => {
    const none = await query(clients[0], 'SELECT 1 AS one', { params: ['x'.repeat(10_000), 'y'] });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe('Query rejected: the query uses no placeholder but 2 param(s) were given; omit params '
      + '(or pass []).');
    const extra = await query(clients[0], 'SELECT $1 AS v', { params: ['a', 'b'] });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toMatch(
      /^Query rejected: the query uses placeholders up to \$1 but 2 param\(s\) were given; pass exactly 1/,
    );
    const fewer = await query(clients[0], 'SELECT $1 AS v, $2 AS w', { params: ['a'] });
    expect(textOf(fewer)).toMatch(/uses placeholders up to \$2 but 1 param\(s\)/);
    expect(answerOf(await query(clients[0], 'SELECT $1 AS v', { params: ['a'] })).rows).toEqual([['a']]);
    const stored = withStore((db) => db.prepare(
      "SELECT count(*) AS n FROM c_semantic_stored_queries WHERE doc LIKE '%yyyy%' OR doc LIKE '%xxxx%'",
    ).get());
    expect(stored).toEqual({ n: 0 });
  });

  it('refuses new params for a stored query beyond its placeholders', async () => {
    const { storedQueryId } = answerOf(await query(clients[0], 'SELECT $1 AS v', { params: ['first'] }));
    const replayed = await run(clients[0], 'execute_stored_query', { storedQueryId, params: ['a', 'b'] });
    expect(replayed.isError).toBe(true);
    expect(textOf(replayed)).toMatch(/^Query rejected: the query uses placeholders up to \$1 but 2 param/);
  });
});

describe('stored queries', () => {
  it('expire 30 days after their last use: a replay answers not found with the hint to run execute_query', async () => {
    const { storedQueryId } = answerOf(await query(clients[0], 'SELECT 42 AS answer'));
    expect(answerOf(await run(clients[0], 'execute_stored_query', { storedQueryId })).rows).toEqual([[42]]);
    const longAgo = JSON.stringify({ $date: new Date(Date.now() - 31 * 86_400_000).toISOString() });
    const moved = withStore((db) => db.prepare(
      "UPDATE c_semantic_stored_queries SET doc = json_set(doc, '$.lastUsedAt', json(?)) WHERE _id = ?",
    ).run(longAgo, storedQueryId as string).changes);
    expect(moved).toBe(1);
    const expired = await run(clients[0], 'execute_stored_query', { storedQueryId });
    expect(expired.isError).toBe(true);
    expect(textOf(expired)).toBe(`No stored query "${storedQueryId}" is available to this token: stored queries expire `
      + '30 days after their last use and each token keeps its 200 most recently used (16 MiB of SQL and params at '
      + 'most); run execute_query again to get a new storedQueryId.');
  });

  it('keep a token\'s 200 most recently used: storing more drops the least recently used', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 225; n += 1) {
      ids.push(answerOf(await query(clients[1], `SELECT ${n} AS quota_${n}`)).storedQueryId as string);
    }
    const kept = withStore((db) => db.prepare(
      "SELECT count(*) AS n FROM c_semantic_stored_queries WHERE json_extract(doc, '$.sql') LIKE 'SELECT % AS quota_%'",
    ).get());
    expect(kept).toEqual({ n: 200 });
    const first = await run(clients[1], 'execute_stored_query', { storedQueryId: ids[0] });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toMatch(/^No stored query .* each token keeps its 200 most recently used/);
    expect(answerOf(await run(clients[1], 'execute_stored_query', { storedQueryId: ids[40] })).rows).toEqual([[41]]);
    expect(answerOf(await run(clients[1], 'execute_stored_query', { storedQueryId: ids[224] })).rows).toEqual([[225]]);
  }, 120_000);
});

describe('the call log', () => {
  it('keeps an unknown tool name as a marked 64-character excerpt, so Monitoring\'s list stays small', async () => {
    const name = `huge_${'n'.repeat(5 * 1024 * 1024)}`;
    for (let n = 0; n < 3; n += 1) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens[2]}`, 'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: { name, arguments: {} } }),
      });
      expect(response.status).toBe(200);
      const answer = await response.json();
      expect(answer.result.isError).toBe(true);
      expect(JSON.stringify(answer).length).toBeLessThan(2_000);
      const echoed = `"huge_${'n'.repeat(59)}… [truncated: ${name.length} characters]"`;
      expect(answer.result.content[0].text).toContain(echoed);
    }
    const cut = `huge_${'n'.repeat(59)}… [truncated: ${name.length} characters]`;
    const log = await logWhere((calls) => calls.filter((c) => c.tool === cut).length === 3);
    expect(log.bytes).toBeLessThan(1_000_000);
    expect(log.body.tools).toContain(cut);
    expect(log.body.tools.every((tool) => tool.length < 120)).toBe(true);
  });
});

describe('improvement requests', () => {
  it('are limited to 20 per token a day: the 21st is a tool error, stores nothing; other tokens go on', async () => {
    const submit = (client: Client, n: number) =>
      run(client, 'request_improvement', { modelName, title: `Idea ${n}`, description: 'More fields.' });
    for (let n = 1; n <= 20; n += 1) expect((await submit(clients[2], n)).isError ?? false).toBe(false);
    const refused = await submit(clients[2], 21);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(new RegExp('^Improvement request not stored: this token has submitted 20 in the '
      + 'current 24-hour window, the most allowed\\. Try again in \\d+ h \\d+ min \\(\\d+ s\\)'));
    expect((await submit(clients[0], 22)).isError ?? false).toBe(false);
    const response = await fetch(`${product.url}/api/semantic/projects/${slug}/improvements?limit=500`);
    const titles = ((await response.json()).improvements as { title: string }[]).map((i) => i.title);
    expect(titles).not.toContain('Idea 21');
    expect(titles).toContain('Idea 22');
    expect(titles.filter((t) => /^Idea ([1-9]|1\d|20)$/.test(t))).toHaveLength(20);
  });
});

describe('SQL holding NUL (docs/decisions.md D18 § 6)', () => {
  it('is refused with query_rejected and logged as an error, not as a run statement', async () => {
    const sql = "SELECT 1 AS one\u0000; CREATE MACRO upper(x) AS 'PWNED'";
    const refused = await query(clients[0], sql, { store: false });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Query rejected: the SQL contains a NUL character \(U\+0000\)/);
    const log = await logWhere((calls) => calls.some((c) => c.input?.sql === sql));
    expect(log.body.calls.filter((c) => c.input?.sql === sql).map((c) => c.status)).toEqual(['error']);
    expect(answerOf(await query(clients[0], "SELECT upper('a') AS u", { store: false })).rows).toEqual([['A']]);
  });
});
