/**
 * End to end through the front proxy with the official MCP client: the view is a security boundary
 * (docs/decisions.md D18 § 1). On a 300,000-row table (past the ~51,200 rows where DuckDB's adaptive filter
 * ordering ran a caller's predicate before the view's own filter), for each kind of view filter
 * (constant, lower(), JOIN with an allow-list table, IN (subquery)): the reproduction shows no hidden
 * email, the exclusion walk ends at once, and an error oracle keyed on a hidden row stays silent
 * while one keyed on a visible row does error (the query shape reaches the engine). A dataset's ENUM
 * column names no value that only hidden rows hold (DESCRIBE, typeof, enum_range, result types).
 * Scope files of two projects with identical data and of both planes of a model never evict each other.
 * Source: spec/semantic-query-service.md § What the service does (3), § Query validation; docs/decisions.md
 * D18 § 1.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { mcpClient, textOf } from '../helpers/semantic-fixtures.ts';

/** One model per view-filter kind, each with the dataset `events` (EU rows only). */
const kinds: Record<string, string> = {
  constant: "SELECT id, region, email, amount FROM data.events WHERE region = 'EU'",
  lowered: "SELECT id, region, email, amount FROM data.events WHERE lower(region) = 'eu'",
  joined: 'SELECT e.id, e.region, e.email, e.amount FROM data.events e JOIN data.allow a ON e.region = a.region',
  subquery: 'SELECT id, region, email, amount FROM data.events WHERE region IN (SELECT region FROM data.allow)',
};
const enumView = "SELECT id, region, [region] AS regions, {'r': region} AS st FROM data.ev_enum WHERE region = 'EU'";
const hiddenEmail = /user\d+@(us|apac)\.example/;

let product: RunningProduct;
let client: Client;
let token: string;
let projectDir: string;

function model(name: string, datasets: Record<string, string>): string {
  const entries = Object.entries(datasets).map(([dataset, viewQuery]) => `      - name: ${dataset}
        source: data.${dataset}
        custom_extensions:
          - vendor_name: COMMON
            data: '${JSON.stringify({ view_query: viewQuery }).replace(/'/g, "''")}'`);
  const head = `version: "0.1.1"\nsemantic_model:\n  - name: ${name}\n    description: View barrier, ${name}.\n`;
  return `${head}    datasets:\n${entries.join('\n')}\n`;
}

/**
 * events: 300,000 rows, region cycling EU/US/APAC; allow: the allow-list (EU); ev_enum: an ENUM column
 * whose value SECRET_ZONE only row 7 (a US row, hidden) holds.
 */
async function writeData(file: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE events AS SELECT range AS id, ['EU', 'US', 'APAC'][range % 3 + 1] AS region,
      'user' || range || '@' || lower(['EU', 'US', 'APAC'][range % 3 + 1]) || '.example' AS email,
      (range % 1000) * 1.5 AS amount FROM range(300000)`);
    await connection.run("CREATE TABLE allow AS SELECT 'EU' AS region");
    await connection.run(`CREATE TABLE ev_enum AS SELECT range AS id,
      CAST(CASE WHEN range = 7 THEN 'SECRET_ZONE' ELSE ['EU', 'US', 'APAC'][range % 3 + 1] END
        AS ENUM('EU', 'US', 'APAC', 'SECRET_ZONE')) AS region
      FROM range(1000)`);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function importProject(slug: string, models: Record<string, string>, publish: boolean): void {
  for (const [name, text] of Object.entries(models)) writeFileSync(join(projectDir, 'models', `${name}.yaml`), text);
  const args = ['semantic', 'import', projectDir, '--project', slug, ...(publish ? ['--publish'] : [])];
  const imported = runCairn(product.url, args);
  expect(imported.status, imported.stderr).toBe(0);
}

beforeAll(async () => {
  product = await startProduct();
  projectDir = mkdtempSync(join(tmpdir(), 'cairn-barrier-'));
  mkdirSync(join(projectDir, 'models'));
  mkdirSync(join(projectDir, 'data'));
  await writeData(join(projectDir, 'data', 'barrier.duckdb'));
  const models = Object.fromEntries(Object.entries(kinds).map(([name, view]) => [name, model(name, { events: view })]));
  importProject('barrier', { ...models, enum_kind: model('enum_kind', { ev_enum: enumView }) }, true);
  const scopeOfToken = [...Object.keys(kinds), 'enum_kind'].join(',');
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'barrier', '--models', scopeOfToken]);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  client = await mcpClient(`${product.url}/mcp/barrier/mcp`, token);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await product?.stop();
});

const query = (modelName: string, sql: string, on: Client = client) =>
  on.callTool({ name: 'execute_query', arguments: { modelName, sql, store: false } });
/** The rows of a query answer (carried as JSON text, or as structuredContent by older builds). */
const rowsOf = (result: object) => ((result as { structuredContent?: { rows: unknown[][] } }).structuredContent
  ?? (JSON.parse(textOf(result)) as { rows: unknown[][] })).rows;
/** Everything an answer carries as text. */
const answerOf = (result: object) =>
  `${textOf(result)} ${JSON.stringify((result as { structuredContent?: unknown }).structuredContent ?? null)}`;
/** The reproduction's predicate: its pattern holds the email itself for any row not in EU. */
const reproduction = "regexp_full_match(email, CASE WHEN email LIKE '%@eu.%' THEN '.*' ELSE email || '(' END)";
const regexpProbe = (condition: string) => `regexp_full_match(email, CASE WHEN ${condition} THEN '(' ELSE '.*' END)`;

describe.each(Object.keys(kinds))('a view filtered by the %s kind is a barrier on 300,000 rows', (kind) => {
  it('the reproduction answers over visible rows only, naming no hidden email', async () => {
    const result = await query(kind, `SELECT count(*) FROM events WHERE ${reproduction}`);
    expect(answerOf(result)).not.toMatch(hiddenEmail);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(rowsOf(result)).toEqual([[100_000]]);
  });

  it('the exclusion walk ends at once: no answer names a hidden row to exclude', async () => {
    const leaked: string[] = [];
    for (let step = 0; step < 3; step += 1) {
      const excluded = leaked.map((email) => `'${email}'`).join(', ') || "''";
      const sql = `SELECT count(*) FROM events WHERE email NOT IN (${excluded}) AND ${reproduction}`;
      const result = await query(kind, sql);
      const found = hiddenEmail.exec(answerOf(result));
      if (!found) break;
      leaked.push(found[0]);
    }
    expect(leaked).toEqual([]);
  });

  it('an error oracle keyed on a hidden row near row 51,200 stays silent', async () => {
    const oracle = regexpProbe("email = 'user51200@apac.example'");
    const result = await query(kind, `SELECT count(*) FROM events WHERE ${oracle}`);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(rowsOf(result)).toEqual([[100_000]]);
  });

  it('the same oracle keyed on a visible row errors (the query shape reaches the engine)', async () => {
    const oracle = regexpProbe("email = 'user51201@eu.example'");
    const result = await query(kind, `SELECT count(*) FROM events WHERE ${oracle}`);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/missing \)/);
    expect(textOf(result)).not.toMatch(hiddenEmail);
  });
});

describe('an ENUM column names no value that only hidden rows hold', () => {
  it.each([
    ['DESCRIBE ev_enum', 'ok'],
    ['SELECT typeof(region) AS t, typeof(regions) AS ts, typeof(st) AS tst FROM ev_enum LIMIT 1', 'ok'],
    ['SELECT region, regions, st FROM ev_enum LIMIT 1', 'ok'],
    ['SELECT enum_range(region) FROM ev_enum LIMIT 1', 'error'],
    ['SELECT enum_last(regions[1]) FROM ev_enum LIMIT 1', 'error'],
  ])('%s shows only text types', async (sql, outcome) => {
    const result = await query('enum_kind', sql);
    expect(answerOf(result)).not.toMatch(/SECRET_ZONE|ENUM\(/);
    expect(Boolean(result.isError), textOf(result)).toBe(outcome === 'error');
    if (outcome === 'ok') expect(answerOf(result)).toMatch(/VARCHAR|"EU"/);
  });
});

describe('scope files', () => {
  /** The scope files of model `name` (all projects and planes: they share one data build), with inode and mtime. */
  const scopeFiles = (name: string) => {
    const cache = join(product.dataDir, 'cache', 'semantic');
    const pattern = new RegExp(`^_scope_${name}_.*\\.duckdb$`);
    if (!existsSync(cache)) return [];
    return readdirSync(cache).flatMap((key) => {
      const scopes = join(cache, key, 'scopes');
      if (!existsSync(scopes)) return [];
      return readdirSync(scopes).filter((file) => pattern.test(file)).map((file) => {
        const { ino, mtimeMs } = statSync(join(scopes, file));
        return `${key}/${file} ${ino} ${mtimeMs}`;
      });
    }).sort();
  };
  /**
   * The scope files of model `constant` of the planes in play: (project slug, plane) pairs. A publish builds every
   * model of every published project, so other projects of this file hold their own `constant` files too.
   */
  const filesOf = async (planes: [string, string][]) => {
    const listed = await (await fetch(`${product.url}/api/semantic/projects`)).json() as {
      projects: { id: string; slug: string }[];
    };
    const idOf = (slug: string) => listed.projects.find((p) => p.slug === slug)!.id;
    const owner = (slug: string, plane: string) =>
      createHash('sha256').update(`${idOf(slug)}\n${plane}\nconstant`).digest('hex').slice(0, 8);
    const owners = planes.map(([slug, plane]) => `_scope_constant_${owner(slug, plane)}_`);
    return scopeFiles('constant').filter((file) => owners.some((o) => file.includes(o)));
  };

  it('of a model are built once the model is read, before its first query, which then builds nothing', async () => {
    importProject('barrier-ahead', { ahead: model('ahead', { events: kinds.constant }) }, true);
    const aheadToken = runCairn(product.url, ['semantic', 'token', 'create', 'barrier-ahead', '--models', 'ahead'])
      .stdout.trim();
    const reader = await mcpClient(`${product.url}/mcp/barrier-ahead/mcp`, aheadToken);
    try {
      expect(scopeFiles('ahead')).toEqual([]);
      const overview = await reader.callTool({ name: 'get_semantic_model', arguments: { modelName: 'ahead' } });
      expect(overview.isError, textOf(overview)).toBeFalsy();
      await vi.waitFor(() => expect(scopeFiles('ahead')).toHaveLength(1), { timeout: 120_000, interval: 100 });
      const built = scopeFiles('ahead');
      expect(rowsOf(await query('ahead', 'SELECT count(*) FROM events', reader))).toEqual([[100_000]]);
      expect(scopeFiles('ahead')).toEqual(built);
    } finally {
      await reader.close();
    }
  }, 180_000);

  it('of two projects with identical data and of both planes of one model do not evict each other', async () => {
    const views = { constant: model('constant', { events: "SELECT id, email FROM data.events WHERE region = 'US'" }) };
    importProject('barrier-twin', views, true);
    const twinToken = runCairn(product.url, ['semantic', 'token', 'create', 'barrier-twin', '--models', 'constant'])
      .stdout.trim();
    const twin = await mcpClient(`${product.url}/mcp/barrier-twin/mcp`, twinToken);
    const apac = model('constant', { events: "SELECT id, email FROM data.events WHERE region = 'APAC'" });
    importProject('barrier', { constant: apac }, false);
    const tester = await mcpClient(`${product.url}/mcp/barrier/test/mcp`, token);
    try {
      const sql = 'SELECT min(id), count(*) FROM events';
      // production of barrier (EU), production of barrier-twin (US), test plane of barrier (APAC)
      const expected = [[[0, 100_000]], [[1, 100_000]], [[2, 100_000]]];
      const round = async () => {
        const rows = [];
        for (const on of [client, twin, tester]) rows.push(rowsOf(await query('constant', sql, on)));
        return rows;
      };
      expect(await round()).toEqual(expected);
      const inPlay: [string, string][] = [['barrier', 'production'], ['barrier-twin', 'production'], ['barrier', 'test']];
      const files = await filesOf(inPlay);
      expect(files).toHaveLength(3);
      expect(await round()).toEqual(expected);
      expect(await filesOf(inPlay)).toEqual(files);
    } finally {
      await twin.close();
      await tester.close();
    }
  });
});
