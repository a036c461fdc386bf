/**
 * End to end through the front proxy: the attack round against the semantic service, as a hostile
 * agent holding a token scoped to one model of a two-model project. Every reproduction is refused or
 * harmless: no other model's rows, no hidden rows or columns (through statistics, plans or errors),
 * no write that another query sees, no project-existence oracle, no terminal injection.
 * Source: spec/semantic-query-service.md § Query validation, § Authentication; docs/decisions.md D6 § 0.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { mcpClient, projectDir, queryOutputOf, textOf } from '../helpers/semantic-fixtures.ts';

const fixtures = join(repoRoot, 'test/fixtures/semantic/attack');
/** Text that exists only in rows or columns the token must never see. */
const hidden = /SECRET-ROW-VALUE|HIDDEN-NOTE|1000|hidden|tenant|_scope_|\/tmp|cache/i;

let product: RunningProduct;
let client: Client;
let token: string;

beforeAll(async () => {
  product = await startProduct();
  const dir = projectDir([join(fixtures, 'public_notes.yaml'), join(fixtures, 'secret_model.yaml')]);
  for (const file of ['items.csv', 'secret_items.csv']) copyFileSync(join(fixtures, file), join(dir, 'data', file));
  const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', 'attack', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'attack', '--models', 'public_notes']);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  client = await mcpClient(`${product.url}/mcp/attack/mcp`, token);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await product?.stop();
});

const query = (sql: string) => client.callTool({ name: 'execute_query', arguments: { modelName: 'public_notes', sql, store: false } });
const rowsOf = (result: object) => queryOutputOf(result).rows;

describe('the query path refuses the attack round', () => {
  it.each([
    '--\rSELECT * FROM data.secret_items /*\nEXPLAIN SELECT 1 -- */',
    '--\r\nSELECT * FROM data.secret_items /*\nEXPLAIN SELECT 1 -- */',
    '--\rSELECT view_name, sql FROM duckdb_views() /*\nEXPLAIN SELECT 1 -- */',
    "--\rSELECT current_setting('temp_directory') /*\nEXPLAIN SELECT 1 -- */",
    '/* /* nested */ EXPLAIN */ SELECT * FROM "data"."secret_items"',
    'SELECT * FROM secret_rows',
    "EXPLAIN ANALYZE CREATE MACRO memory.main.upper(x) AS 'PWNED'",
    "--\rEXPLAIN ANALYZE CREATE MACRO upper(x) AS 'PWNED' /*\n SELECT 1 */",
    'EXPLAIN ANALYZE CREATE TABLE memory.main.planted AS SELECT 1 AS x',
    "SELECT 1; CREATE MACRO upper(x) AS 'PWNED'",
    'SELECT stats(id), stats(note) FROM notes',
    'SELECT vector_type(note) FROM notes',
    'EXPLAIN SELECT * FROM notes',
    'EXPLAIN (FORMAT JSON) SELECT * FROM notes',
  ])('%j is refused and reveals nothing hidden', async (sql) => {
    const result = await query(sql);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^(Query rejected|Could not parse query): /);
    expect(textOf(result)).not.toMatch(hidden);
  });

  it('leaves built-in functions and the catalog as they were for every caller', async () => {
    expect(rowsOf(await query("SELECT upper('a') AS u, lower('B') AS l"))).toEqual([['A', 'b']]);
    const planted = await query('SELECT * FROM planted');
    expect(planted.isError).toBe(true);
    expect(textOf(planted)).toMatch(/^Query rejected: unknown table "planted"/);
  });

  it('answers only visible rows and columns, also through aggregates and errors', async () => {
    expect(rowsOf(await query('SELECT max(id), count(*), min(note) FROM notes'))).toEqual([[2, 2, '11']]);
    expect(rowsOf(await query('SELECT * FROM notes ORDER BY id'))).toEqual([[1, '11'], [2, '22']]);
    const cast = await query('SELECT id FROM notes WHERE CAST(note AS INTEGER) > 0 ORDER BY id');
    expect(cast.isError ? textOf(cast) : JSON.stringify(rowsOf(cast))).not.toMatch(hidden);
    const describe = await query('DESCRIBE notes');
    expect(JSON.stringify(rowsOf(describe))).not.toMatch(hidden);
  });
});

describe('authentication reveals no project', () => {
  const post = (slug: string, authorization?: string) => fetch(`${product.url}/mcp/${slug}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

  it('answers an unknown project exactly as an existing one without a valid token', async () => {
    const answers = await Promise.all([post('attack'), post('no-such-project'), post('no-such-project', `Bearer ${token}`), post('attack', 'Bearer cairn_mcp_wrong')]);
    const seen = await Promise.all(answers.map(async (r) => ({ status: r.status, challenge: r.headers.get('www-authenticate'), body: await r.text() })));
    expect(seen[0].status).toBe(401);
    expect(seen[0].challenge).toMatch(/^Bearer /);
    for (const answer of seen) expect(answer).toEqual(seen[0]);
  });
});

describe('the cairn command prints what an agent wrote inertly', () => {
  it('escapes control and bidirectional characters of an improvement request', async () => {
    const title = 'Fix\u001b]0;owned\u0007 this\u202eexe.txt';
    const result = await client.callTool({ name: 'request_improvement', arguments: { modelName: 'public_notes', title, description: 'line\u001b[2J\u0000two\rover' } });
    expect(result.isError).toBeFalsy();
    const printed = runCairn(product.url, ['semantic', 'improvements', 'attack']);
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(printed.stdout).toContain('Fix\\u001B]0;owned\\u0007 this\\u202Eexe.txt');
    const json = runCairn(product.url, ['--json', 'semantic', 'improvements', 'attack']);
    expect(json.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
    expect((JSON.parse(json.stdout) as { title: string }[])[0].title).toBe(title);
  });
});
