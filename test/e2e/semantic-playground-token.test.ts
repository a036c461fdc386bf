/**
 * End to end: the playground's token. A signed-in member mints it through the API, calls the project's
 * test endpoint with the MCP SDK client (as the web app's playground does), reaches a model saved after
 * minting, sees the call in the call log (named as a playground token) but not the token in MCP Access,
 * and minting again revokes the previous one.
 * Source: spec/semantic-query-service.md § What the service does 2, § Authentication, § Events;
 * docs/decisions.md D9.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { flightsModel, mcpClient, projectDir, textOf } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;

const api = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${product.url}/api/semantic/projects/flights${path}`, { ...init, headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) } });
  return { status: response.status, body: await response.json() };
};
const mint = async () => {
  const { status, body } = await api('/playground-token', { method: 'POST' });
  expect(status, JSON.stringify(body)).toBe(201);
  return body as { token: string; expiresAt: string; tokenId: string };
};

const laterModel = `version: "0.2.0.dev0"
semantic_model:
  - name: saved_later
    description: Saved after the playground token was minted.
    datasets:
      - name: airports
        source: data.airports
        custom_extensions:
          - vendor_name: COMMON
            data: '{"view_query": "SELECT iata, state FROM data.airports"}'
        fields:
          - name: iata
            expression: { dialects: [ { dialect: ANSI_SQL, expression: iata } ] }
`;

beforeAll(async () => {
  product = await startProduct();
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights']);
  expect(imported.status, imported.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await product?.stop();
});

describe('playground token', () => {
  it('calls the test endpoint, reaches models saved later, is logged but not listed, and is replaced by the next one', async () => {
    const first = await mint();
    expect(first.token).toMatch(/^cairn_mcp_/);
    const hours = (Date.parse(first.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);

    const saved = await api('/sources', { method: 'POST', body: JSON.stringify({ models: { 'saved_later.yaml': laterModel }, data: [] }) });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const client = await mcpClient(`${product.url}/mcp/flights/test/mcp`, first.token);
    try {
      const listed = textOf(await client.callTool({ name: 'list_semantic_models', arguments: {} }));
      expect(listed).toContain('flights');
      expect(listed).toContain('saved_later');
      const result = await client.callTool({ name: 'execute_query', arguments: { modelName: 'saved_later', sql: 'SELECT count(*) AS n FROM airports', store: false } });
      expect(result.isError, textOf(result)).toBeFalsy();
    } finally {
      await client.close();
    }

    const calls = await api(`/calls?token=${encodeURIComponent(first.tokenId)}`);
    expect(calls.status).toBe(200);
    expect(calls.body.calls.map((c: { tool: string; plane: string }) => `${c.tool}@${c.plane}`).sort()).toEqual(['execute_query@test', 'list_semantic_models@test']);
    expect(calls.body.tools).toEqual(expect.arrayContaining(['execute_query', 'list_semantic_models']));

    const tokens = await api('/tokens');
    expect(tokens.status).toBe(200);
    expect(tokens.body.tokens.map((t: { id: string }) => t.id)).not.toContain(first.tokenId);
    const names = await api('/calls/tokens');
    expect(names.body.tokens).toContainEqual(expect.objectContaining({ id: first.tokenId, playground: true, name: expect.stringMatching(/^playground · /) }));

    const stats = await api('/calls/stats?bucketMinutes=60');
    expect(stats.status).toBe(200);
    expect(stats.body.buckets.reduce((n: number, b: { calls: number }) => n + b.calls, 0)).toBe(2);
    expect(stats.body.buckets.reduce((n: number, b: { queries: number }) => n + b.queries, 0)).toBe(1);
    expect((await api('/calls/stats?bucketMinutes=0')).status).toBe(400);

    const second = await mint();
    expect(second.tokenId).not.toBe(first.tokenId);
    const refused = await fetch(`${product.url}/mcp/flights/test/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${first.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    const again = await mcpClient(`${product.url}/mcp/flights/test/mcp`, second.token);
    await again.close();
  }, 120_000);
});
