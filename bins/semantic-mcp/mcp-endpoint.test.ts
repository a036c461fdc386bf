/**
 * The endpoint's own stateless MCP wire: the same refusals as the SDK's transport (statuses,
 * JSON-RPC codes), version negotiation, notifications, batches and JSON-RPC errors. Tool calls
 * against real stores and the SDK's client are in test/e2e/semantic-mcp-tools.test.ts.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { ProjectRecord, TokenRecord } from '../../core/semantic/records.ts';
import { handleMcpRequest, type McpEndpointDeps } from './mcp-endpoint.ts';
import { startServerTiming } from './server-timing.ts';

/** Only the parts these calls reach; a tools/call with valid params would need real stores. */
const env = { version: '1.2.3', logger: { error: () => undefined } } as unknown as McpEndpointDeps;
const caller = { project: { slug: 'flights' } as ProjectRecord, token: {} as TokenRecord, plane: 'production' as const };
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(body: unknown, headers: Record<string, string> = json, method = 'POST') {
  const request = new Request('http://localhost/mcp/flights/mcp', { method, headers, ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const response = await handleMcpRequest(env, request, caller, { timing: startServerTiming() });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, allow: response.headers.get('allow') };
}

describe('stateless MCP endpoint', () => {
  it('refuses what the SDK transport refuses, with its statuses and codes', async () => {
    expect(await post(undefined, json, 'GET')).toMatchObject({ status: 405, allow: 'POST', body: { error: { code: -32000 } } });
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'application/json', accept: 'application/json' })).toMatchObject({ status: 406 });
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...json, 'content-type': 'text/plain' })).toMatchObject({ status: 415 });
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...json, 'mcp-protocol-version': '1999-01-01' })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('Unsupported protocol version: 1999-01-01') } } });
    expect(await post('{not json')).toMatchObject({ status: 400, body: { error: { code: -32700 }, id: null } });
    expect(await post({ id: 1, method: 'ping' })).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    expect(await post([])).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
  });

  it('negotiates the protocol version and names the project in serverInfo', async () => {
    const older = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(older.body.result).toMatchObject({ protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'cairn-semantic/flights', version: '1.2.3' } });
    const unknown = await post({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2099-01-01' } });
    expect(unknown.body.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('answers notifications with 202 and no body, and batches with an array of responses', async () => {
    expect(await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ status: 202, body: undefined, allow: null });
    const batch = await post([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 7, method: 'tools/list' }]);
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: { id: unknown }) => r.id)).toEqual(['a', 7]);
    expect(batch.body[1].result.tools).toHaveLength(6);
  });

  it('gives JSON-RPC errors for an unknown method and a tools/call without a name', async () => {
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'resources/list' })).body).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: resources/list' } });
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } })).body.error.code).toBe(-32602);
    expect((await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x', arguments: [1] } })).body.error.code).toBe(-32602);
  });
});
