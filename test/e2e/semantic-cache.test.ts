/**
 * End to end through the front proxy with the MCP SDK client: what the semantic cache keeps (docs/decisions.md D18 § 8).
 * - A time-dependent view_query (`WHERE expires_at > now()`) would be frozen in its materialised rows: every query of
 *   its model is refused with an error naming the dataset, the function and where it is, on both planes.
 * - Publishing changed data again and again leaves one data build in the cache, not one per publish.
 * - A project whose data would pass SEMANTIC_CACHE_MAX_MB is refused with an error naming the cap and what to do.
 * Source: spec/semantic-query-service.md § What the service does (3), § States (view_query changed); docs/decisions.md D18 § 8.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { mcpClient, queryOutputOf, textOf } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
const clients: Client[] = [];

beforeAll(async () => {
  // 4 MiB: room for a small project's data build and its scope files, not for the 13 MiB flights file.
  product = await startProduct({ SEMANTIC_CACHE_MAX_MB: '4' });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await product?.stop();
});

/** A model `name` with one dataset `dataset` whose view_query is `viewQuery`. */
function model(name: string, dataset: string, viewQuery: string): string {
  return `version: "0.1.1"\nsemantic_model:\n  - name: ${name}\n    description: Cache test.\n    datasets:\n` +
    `      - name: ${dataset}\n        source: data.${dataset}\n        custom_extensions:\n` +
    `          - vendor_name: COMMON\n            data: '${JSON.stringify({ view_query: viewQuery }).replace(/'/g, "''")}'\n`;
}

/** Imports `dir` as project `slug`, published unless `publish` is false. */
function importProject(slug: string, dir: string, publish = true): void {
  const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', slug, ...(publish ? ['--publish'] : [])]);
  expect(imported.status, imported.stderr).toBe(0);
}

/** An MCP client of `slug`'s `plane` with a new token for `modelName`. */
async function clientOf(slug: string, modelName: string, plane: 'production' | 'test' = 'production') {
  const created = runCairn(product.url, ['semantic', 'token', 'create', slug, '--models', modelName]);
  expect(created.status, created.stderr).toBe(0);
  const path = plane === 'test' ? `/mcp/${slug}/test/mcp` : `/mcp/${slug}/mcp`;
  const client = await mcpClient(`${product.url}${path}`, created.stdout.trim());
  clients.push(client);
  return client;
}

/** A project directory with `models` (file name → YAML) and `data` (file name → text). */
function dirWith(models: Record<string, string>, data: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cache-'));
  mkdirSync(join(dir, 'models'));
  mkdirSync(join(dir, 'data'));
  for (const [name, text] of Object.entries(models)) writeFileSync(join(dir, 'models', name), text);
  for (const [name, text] of Object.entries(data)) writeFileSync(join(dir, 'data', name), text);
  return dir;
}

const query = (client: Client, modelName: string, sql: string) =>
  client.callTool({ name: 'execute_query', arguments: { modelName, sql, store: false } });

const offers = 'id,note,expires_at\n1,gone,2000-01-01 00:00:00\n2,live,2999-01-01 00:00:00\n';

describe('a time-dependent view_query', () => {
  it('is refused on every query, naming the dataset, the function and where it is, and what to write instead', async () => {
    const view = 'SELECT id, note FROM data.offers WHERE expires_at > now()';
    const dir = dirWith({ 'offers.yaml': model('offers', 'offers', view) }, { 'offers.csv': offers });
    importProject('frozen', dir);
    const client = await clientOf('frozen', 'offers');
    const refused = await query(client, 'offers', 'SELECT id, note FROM offers ORDER BY id');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'Model "offers" cannot be queried: the view_query of dataset "offers" uses now() (at character 53), whose ' +
        'value changes from call to call; but a dataset\'s rows are materialised once and reused until the ' +
        'view_query or the data changes, so the rows it hides would go stale. Compare with a fixed value instead (a ' +
        'literal date or timestamp, changed and published again when it should move, or a column of the data), give ' +
        'a sample a seed (REPEATABLE (42)), or leave the condition to each query. Ask the modeller to change it ' +
        '(request_improvement can say so).',
    );

    // Saved (not published) with the keyword spelling inside a CTE: the test plane refuses it too.
    const hidden = 'WITH live AS (SELECT * FROM data.offers WHERE expires_at > "CURRENT_TIMESTAMP") SELECT id FROM live';
    writeFileSync(join(dir, 'models', 'offers.yaml'), model('offers', 'offers', hidden));
    importProject('frozen', dir, false);
    const tester = await clientOf('frozen', 'offers', 'test');
    const again = await query(tester, 'offers', 'SELECT count(*) FROM offers');
    expect(textOf(again)).toMatch(/the view_query of dataset "offers" uses current_timestamp \(at character 60\), /);

    // A fixed cut-off is served, and hides what it should.
    const fixed = "SELECT id, note FROM data.offers WHERE expires_at > TIMESTAMP '2026-01-01'";
    writeFileSync(join(dir, 'models', 'offers.yaml'), model('offers', 'offers', fixed));
    importProject('frozen', dir);
    expect(queryOutputOf(await query(client, 'offers', 'SELECT id, note FROM offers')).rows).toEqual([[2, 'live']]);
  }, 120_000);
});

describe('the semantic cache', () => {
  const cacheDir = () => join(product.dataDir, 'cache', 'semantic');
  /** Data directories holding a built database. */
  const dataBuilds = () =>
    existsSync(cacheDir())
      ? readdirSync(cacheDir()).filter((key) => existsSync(join(cacheDir(), key, 'data.duckdb'))).sort()
      : [];

  it('keeps one data build of a project published with changed data again and again', async () => {
    const before = dataBuilds();
    const view = 'SELECT id, note FROM data.items';
    const csv = (n: number) => `id,note\n${Array.from({ length: 500 }, (_, i) => `${i},publish ${n}`).join('\n')}\n`;
    const dir = dirWith({ 'items.yaml': model('items', 'items', view) }, { 'items.csv': csv(0) });
    importProject('grow', dir);
    const client = await clientOf('grow', 'items');
    for (let n = 1; n <= 5; n += 1) {
      writeFileSync(join(dir, 'data', 'items.csv'), csv(n));
      importProject('grow', dir);
      const answer = queryOutputOf(await query(client, 'items', 'SELECT DISTINCT note FROM items'));
      expect(answer.rows).toEqual([[`publish ${n}`]]);
    }
    // Before: one build per publish (6); now only the build the published and saved planes use.
    const added = dataBuilds().filter((key) => !before.includes(key));
    expect(added).toHaveLength(1);
  }, 180_000);

  it('refuses a project whose data would pass SEMANTIC_CACHE_MAX_MB, naming the cap and what to do', async () => {
    const dir = dirWith({ 'flights.yaml': model('flights', 'flights', 'SELECT * FROM data.flights') }, {});
    copyFileSync(join(repoRoot, 'node_modules/vega-datasets/data/flights-3m.parquet'), join(dir, 'data', 'flights.parquet'));
    importProject('big', dir);
    const client = await clientOf('big', 'flights');
    const refused = await query(client, 'flights', 'SELECT count(*) FROM flights');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'The data of this model cannot be built: its files need 12.9 MiB, and with the data already in the semantic ' +
        'cache that would pass its cap of 4 MiB (SEMANTIC_CACHE_MAX_MB), even after removing every build no ' +
        'published or saved model uses. Ask the operator to raise SEMANTIC_CACHE_MAX_MB (with the disk space it ' +
        'needs), or make the project\'s data files smaller.',
    );
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
