/**
 * End to end: saved sources versus the published build, view_query changes, models that fail
 * validation, models without view_query, and tokens of another project.
 * Source: spec/semantic-query-service.md § States and transitions, § Errors.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { fixtureModel, mcpClient, projectDir, queryOutputOf, textOf } from '../helpers/semantic-fixtures.ts';

const airportsModel = (description: string, viewQuery: string) => `version: "0.2.0.dev0"
semantic_model:
  - name: airports
    description: ${description}
    datasets:
      - name: airports
        source: data.airports
        custom_extensions:
          - vendor_name: COMMON
            data: '${JSON.stringify({ view_query: viewQuery }).replace(/'/g, "''")}'
          - vendor_name: SNOWFLAKE
            data: '{"warehouse": "KEEP_ME"}'
        fields:
          - name: iata
            expression: { dialects: [ { dialect: ANSI_SQL, expression: iata } ] }
`;

let product: RunningProduct;
let token: string;

function importDir(models: (string | { name: string; text: string })[], publish: boolean) {
  const result = runCairn(product.url, ['semantic', 'import', projectDir(models), '--project', 'airports', ...(publish ? ['--publish'] : [])]);
  return result;
}

beforeAll(async () => {
  product = await startProduct();
  const first = importDir([{ name: 'airports.yaml', text: airportsModel('Version one.', 'SELECT iata, state FROM data.airports') }], true);
  expect(first.status, first.stderr).toBe(0);
  token = runCairn(product.url, ['semantic', 'token', 'create', 'airports', '--models', 'airports,no_view_query,broken']).stdout.trim();
}, 120_000);

afterAll(async () => {
  await product?.stop();
});

const query = async (plane: 'mcp' | 'test/mcp', sql: string) => {
  const client = await mcpClient(`${product.url}/mcp/airports/${plane}`, token);
  try {
    return await client.callTool({ name: 'execute_query', arguments: { modelName: 'airports', sql, store: false } });
  } finally {
    await client.close();
  }
};

describe('planes', () => {
  it('serves saved changes on the test endpoint at once and on production only after publish', async () => {
    const saved = importDir([{ name: 'airports.yaml', text: airportsModel('Version two.', "SELECT iata, state, 'v2' AS version FROM data.airports") }], false);
    expect(saved.status, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('not published');
    const sql = 'SELECT version FROM airports LIMIT 1';
    expect(queryOutputOf(await query('test/mcp', sql))).toMatchObject({ rows: [['v2']] });
    const before = await query('mcp', sql);
    expect(before.isError).toBe(true);
    expect(textOf(before)).toMatch(/version/);
    expect(runCairn(product.url, ['semantic', 'publish', 'airports']).status).toBe(0);
    expect(queryOutputOf(await query('mcp', sql))).toMatchObject({ rows: [['v2']] });
  });

  it('re-materialises views on every call: a changed view_query takes effect on the next call', async () => {
    importDir([{ name: 'airports.yaml', text: airportsModel('Version three.', "SELECT iata, 'v3' AS version FROM data.airports") }], false);
    const v3 = await query('test/mcp', 'SELECT version FROM airports LIMIT 1');
    expect(queryOutputOf(v3)).toMatchObject({ rows: [['v3']] });
    importDir([{ name: 'airports.yaml', text: airportsModel('Broken view.', 'SELECT no_such_column FROM data.airports') }], false);
    const broken = await query('test/mcp', 'SELECT * FROM airports LIMIT 1');
    expect(broken.isError).toBe(true);
    expect(textOf(broken)).toMatch(/could not be materialised/);
  });

  it('names every dataset without view_query', async () => {
    importDir([{ name: 'airports.yaml', text: airportsModel('ok', 'SELECT iata FROM data.airports') }, fixtureModel('no_view_query.yaml')], false);
    const client = await mcpClient(`${product.url}/mcp/airports/test/mcp`, token);
    const result = await client.callTool({ name: 'execute_query', arguments: { modelName: 'no_view_query', sql: 'SELECT * FROM ready' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/unfinished_one, unfinished_two/);
  });

  it('reports a model that fails validation with file, path and reason, and refuses to publish it', async () => {
    importDir([{ name: 'airports.yaml', text: airportsModel('ok', 'SELECT iata FROM data.airports') }, { name: 'broken.yaml', text: 'version: "0.2.0.dev0"\nsemantic_model:\n  - name: broken\n    datasets: []\n' }], false);
    const client = await mcpClient(`${product.url}/mcp/airports/test/mcp`, token);
    const listed = textOf(await client.callTool({ name: 'list_semantic_models', arguments: {} }));
    await client.close();
    expect(listed).toMatch(/broken\.yaml/);
    expect(listed).toMatch(/\/semantic_model\/0\/datasets/);
    const publish = runCairn(product.url, ['semantic', 'publish', 'airports']);
    expect(publish.status).toBe(1);
    expect(publish.stderr).toMatch(/broken\.yaml/);
  });

  it('pages the digest with the page size set per project', async () => {
    const fields = Array.from({ length: 3 }, (_, i) => `          - name: f${i}\n            expression: { dialects: [ { dialect: ANSI_SQL, expression: f${i} } ] }`).join('\n');
    const model = airportsModel('paged', 'SELECT iata AS f0, name AS f1, city AS f2 FROM data.airports').replace(/        fields:\n[\s\S]*$/, `        fields:\n${fields}\n`);
    const result = runCairn(product.url, ['semantic', 'import', projectDir([{ name: 'airports.yaml', text: model }]), '--project', 'airports', '--page-size', '2']);
    expect(result.status, result.stderr).toBe(0);
    const client = await mcpClient(`${product.url}/mcp/airports/test/mcp`, token);
    const first = textOf(await client.callTool({ name: 'get_datasets', arguments: { modelName: 'airports', datasets: [{ name: 'airports' }] } }));
    const second = textOf(await client.callTool({ name: 'get_datasets', arguments: { modelName: 'airports', datasets: [{ name: 'airports', page: 2 }] } }));
    await client.close();
    expect(first).toMatch(/f0[\s\S]*f1/);
    expect(first).not.toMatch(/- f2/);
    expect(first).toMatch(/1 more field.*page: 2/);
    expect(second).toMatch(/- f2/);
  });

  it('refuses a token of another project', async () => {
    const other = runCairn(product.url, ['semantic', 'import', projectDir([fixtureModel('secret_inventory.yaml')]), '--project', 'other', '--publish']);
    expect(other.status, other.stderr).toBe(0);
    const response = await fetch(`${product.url}/mcp/other/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
  });

  it('never stores the raw token: the document store holds only its digest', () => {
    const file = readFileSync(`${product.dataDir}/docdb.sqlite`);
    expect(file.includes(Buffer.from(token))).toBe(false);
  });
});
