/**
 * End to end: the running product (Caddy → semantic-mcp, api) driven through the front proxy with the
 * official MCP SDK client, the demo flights model over the real BTS data, and the `cairn` command.
 * Source: spec/semantic-query-service.md (tools, validation, authentication, limits).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import {
  fixtureModel, flightsModel, mcpClient, projectDir, queryOutputOf, textOf,
} from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
let endpoint: string;
let token: string;
let client: Client;

beforeAll(async () => {
  product = await startProduct();
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([flightsModel, fixtureModel('secret_inventory.yaml')]), '--project', 'flights', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights']);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  endpoint = `${product.url}/mcp/flights/mcp`;
  client = await mcpClient(endpoint, token);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await product?.stop();
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

describe('connection and authentication', () => {
  it('prints the raw token alone, with the fixed prefix', () => {
    expect(token).toMatch(/^cairn_mcp_[A-Za-z0-9_-]{43}$/);
  });

  it('answers 401 with a Bearer challenge without a token or with a wrong one', async () => {
    for (const authorization of [undefined, 'Bearer cairn_mcp_wrong', `Basic ${token}`]) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await response.json()).error.code).toBe('unauthorized');
    }
    await expect(mcpClient(endpoint)).rejects.toThrow();
  });

  it('lists the six tools with annotations; the query tools describe their JSON text, no output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['list_semantic_models', 'get_semantic_model', 'get_datasets', 'execute_query', 'execute_stored_query', 'request_improvement']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.get_semantic_model.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.request_improvement.annotations?.readOnlyHint).toBe(false);
    // Rows are carried once, as JSON text (docs/decisions.md D18 § 3): an output schema would oblige structuredContent
    // too.
    expect(tools.filter((t) => t.outputSchema !== undefined)).toEqual([]);
    expect(byName.execute_query.description).toMatch(/Answers JSON text \{columns: \[\{name, type\}\], rows: /);
    expect(byName.get_datasets.inputSchema.properties?.datasets).toMatchObject({ minItems: 1, maxItems: 10 });
  });
});

describe('model tools', () => {
  it('list_semantic_models shows only models in the token scope', async () => {
    const text = textOf(await call('list_semantic_models', {}));
    expect(text).toContain('flights');
    expect(text).not.toMatch(/secret_inventory|hangar/i);
  });

  it('get_semantic_model gives a markdown digest with quoted table names, never YAML', async () => {
    const text = textOf(await call('get_semantic_model', { modelName: 'flights' }));
    expect(text).toContain('"origin_airports"');
    expect(text).toMatch(/origin.*iata/);
    expect(text).toContain('delayed_flight_count');
    expect(text).not.toMatch(/custom_extensions|vendor_name|^\s*dialects:/m);
    const metrics = textOf(await call('get_semantic_model', { modelName: 'flights', scope: 'metrics', page: 1 }));
    expect(metrics).toContain('COUNT');
  });

  it('get_datasets pages fields per dataset and rejects more than 10 datasets', async () => {
    const text = textOf(await call('get_datasets', { modelName: 'flights', datasets: [{ name: 'flights' }, { name: 'origin_airports', page: 1 }] }));
    expect(text).toContain('is_delayed');
    expect(text).toContain('state');
    const tooMany = await call('get_datasets', { modelName: 'flights', datasets: Array.from({ length: 11 }, () => ({ name: 'flights' })) });
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toMatch(/Invalid arguments for get_datasets/);
  });

  it('refuses a model outside the scope without naming it or other out-of-scope models', async () => {
    const result = await call('get_semantic_model', { modelName: 'secret_inventory' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Models you can use: flights.');
    expect(textOf(result).replace('Model "secret_inventory"', '')).not.toMatch(/secret|hangar/i);
  });
});

describe('execute_query', () => {
  const stateQuestion = `SELECT o.state, COUNT(*) AS delayed_departures
    FROM flights f JOIN origin_airports o ON f.origin = o.iata
    WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed_departures DESC LIMIT 3`;

  it('answers which state has the most delayed departures, as JSON text carried once', async () => {
    const result = await call('execute_query', { modelName: 'flights', sql: stateQuestion });
    expect(result.isError).toBeFalsy();
    const output = queryOutputOf(result);
    expect(output.columns.map((c) => c.name)).toEqual(['state', 'delayed_departures']);
    expect(output.rows[0]).toEqual(['CA', 177731]);
    expect(output.rowCount).toBe(3);
    expect(output.storedQueryId).toMatch(/^[a-z2-7]{26}$/);
  });

  it('replays a stored query with new params, and with the stored ones when omitted', async () => {
    const first = await call('execute_query', { modelName: 'flights', sql: 'SELECT COUNT(*) AS n FROM flights WHERE origin = $1 AND delay > $2', params: ['SFO', '30'] });
    const { storedQueryId, rows } = queryOutputOf(first) as { storedQueryId: string; rows: number[][] };
    expect(rows[0][0]).toBeGreaterThan(0);
    const replay = await call('execute_stored_query', { storedQueryId, params: ['LAX', '30'] });
    const same = await call('execute_stored_query', { storedQueryId });
    expect(queryOutputOf(replay).rows[0][0]).not.toBe(rows[0][0]);
    expect(queryOutputOf(same).rows[0][0]).toBe(rows[0][0]);
    expect(queryOutputOf(same).storedQueryId).toBe(storedQueryId);
  });

  it('tells in Server-Timing where the time went, the query process\'s phases too; the output does not', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'execute_query', arguments: { modelName: 'flights', sql: stateQuestion, store: false } },
    });
    const headers = {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    const response = await fetch(endpoint, { method: 'POST', headers, body });
    const phases = Object.fromEntries((response.headers.get('server-timing') ?? '').split(', ').map((part) => {
      const [name, duration] = part.split(';dur=');
      return [name, Number(duration)];
    }));
    for (const name of ['auth', 'engine', 'prepare', 'run', 'convert', 'tool', 'total']) {
      expect(phases[name], name).toBeGreaterThanOrEqual(0);
    }
    expect(phases.prepare + phases.run + phases.convert).toBeLessThanOrEqual(phases.engine);
    const text = (await response.json()).result.content[0].text as string;
    expect(Object.keys(JSON.parse(text))).toEqual(['columns', 'rows', 'rowCount']);
  });

  it('does not store when store is false', async () => {
    const result = await call('execute_query', { modelName: 'flights', sql: 'SELECT 1 AS one', store: false });
    expect(queryOutputOf(result)).toEqual({ columns: [{ name: 'one', type: 'INTEGER' }], rows: [[1]], rowCount: 1 });
  });

  it('caps results at 1,000 rows and sets truncated only when a 1,001st row exists', async () => {
    const sqlUpTo = (n: number) => `SELECT origin FROM flights LIMIT ${n}`;
    const rowsUpTo = (n: number) => call('execute_query', { modelName: 'flights', sql: sqlUpTo(n), store: false });
    const over = queryOutputOf(await rowsUpTo(1001));
    expect(over.rows).toHaveLength(1000);
    expect(over.truncated).toBe(true);
    const exact = queryOutputOf(await rowsUpTo(1000));
    expect(exact.rows).toHaveLength(1000);
    expect(exact).not.toHaveProperty('truncated');
  });

  it.each([
    ['SELECT * FROM information_schema.tables', 'Query rejected: '],
    ['SELECT * FROM "main"."flights"', 'Query rejected: '],
    ["SELECT * FROM read_csv('/etc/passwd')", 'Query rejected: '],
    ["SELECT * FROM '/etc/passwd'", 'Query rejected: '],
    ['SELECT * FROM pg_settings', 'Query rejected: '],
    ['SELECT 1; SELECT 2', 'Query rejected: '],
    ['EXPLAIN /* look */ ANALYZE SELECT * FROM flights', 'Query rejected: '],
    ['SET threads = 8', 'Query rejected: '],
    ['SELEC origin FROM flights', 'Could not parse query: '],
  ])('rejects %s', async (sql, prefix) => {
    const result = await call('execute_query', { modelName: 'flights', sql });
    expect(result.isError).toBe(true);
    expect(textOf(result).startsWith(prefix)).toBe(true);
  });

  it('never names another model or its datasets in a rejection', async () => {
    const result = await call('execute_query', { modelName: 'flights', sql: 'SELECT * FROM hangars' });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^Query rejected: /);
    expect(text.replace(/"hangars"/, '')).not.toMatch(/secret|hangar|_scope_/i);
  });

  it('stops a query after 30 s with a timeout error', async () => {
    const result = await call('execute_query', { modelName: 'flights', sql: 'SELECT COUNT(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range = -1', store: false });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/timed out/i);
  }, 90_000);
});

describe('improvements, call log and token bookkeeping', () => {
  it('stores an improvement request and lists it through the cairn command', async () => {
    const result = await call('request_improvement', { modelName: 'flights', title: 'Add carrier', description: 'Questions ask about airlines; the data has no carrier column.' });
    expect(textOf(result)).toMatch(/submitted/);
    const tooLong = await call('request_improvement', { modelName: 'flights', title: 'x'.repeat(201), description: 'd' });
    expect(tooLong.isError).toBe(true);
    const listed = runCairn(product.url, ['semantic', 'improvements', 'flights']);
    expect(listed.stdout).toContain('Add carrier');
  });

  it('logs every tools/call with status, input and output, filterable by tool and status', async () => {
    const errors = JSON.parse(runCairn(product.url, ['--json', 'semantic', 'log', 'flights', '--status', 'error', '--limit', '500']).stdout) as { tool: string; status: string; input: { sql?: string }; output: { error?: string } }[];
    expect(errors.length).toBeGreaterThan(5);
    expect(errors.every((e) => e.status === 'error')).toBe(true);
    expect(errors.some((e) => e.input.sql === 'SELECT * FROM hangars' && /Query rejected/.test(e.output.error ?? ''))).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    const improvements = JSON.parse(runCairn(product.url, ['--json', 'semantic', 'log', 'flights', '--tool', 'request_improvement', '--from', today, '--to', today]).stdout) as unknown[];
    expect(improvements).toHaveLength(2);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(JSON.parse(runCairn(product.url, ['--json', 'semantic', 'log', 'flights', '--from', tomorrow]).stdout)).toEqual([]);
  });

  it('keeps Last Used and Events (30d) per token, and revoking a token locks it out', async () => {
    const tokens = JSON.parse(runCairn(product.url, ['--json', 'semantic', 'token', 'list', 'flights']).stdout) as { id: string; events30d: number; lastUsedAt?: string; state: string }[];
    expect(tokens).toHaveLength(1);
    expect(tokens[0].events30d).toBeGreaterThan(20);
    expect(tokens[0].lastUsedAt).toBeTruthy();
    expect(runCairn(product.url, ['semantic', 'token', 'revoke', 'flights', tokens[0].id]).status).toBe(0);
    await expect(client.listTools()).rejects.toThrow();
  });
});
