/**
 * A tool collection's service for trigger tests: a real MCP server (the SDK's Server over stateless Streamable HTTP,
 * JSON answers) on 127.0.0.1 that checks its bearer token and offers the tools polling and callback triggers call:
 * - `list_tickets` answers the current tickets as JSON text `{"items": [...]}` (a test adds tickets);
 * - `subscribe` records `{event, arguments, callbackUrl}` and answers `{subscriptionId}`;
 * - `callback` answers a GET check with `{response: {status: 200, body: <query.challenge>}}` and any other request
 *   with one firing per body (`{id: body.id, payload: body}`).
 * Every call is recorded by tool name.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A running trigger service. */
export interface TriggerService {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  endpoint: string;
  token: string;
  /** What `list_tickets` answers; push to add a ticket. */
  tickets: Record<string, unknown>[];
  /** Every tool call's input by tool name, in order. */
  calls: Record<string, Record<string, unknown>[]>;
  close(): Promise<void>;
}

const tools = ['list_tickets', 'subscribe', 'callback'].map((name) => ({ name, description: `test tool ${name}`, inputSchema: { type: 'object' as const } }));

function answer(name: string, input: Record<string, unknown>, tickets: Record<string, unknown>[]): CallToolResult {
  const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  if (name === 'list_tickets') return text({ items: tickets });
  if (name === 'subscribe') return { content: [], structuredContent: { subscriptionId: `sub-${String(input.event)}` } };
  const request = input.request as { method: string; query: Record<string, string>; body: { id?: string } };
  if (request.method === 'GET' || request.method === 'HEAD') return { content: [], structuredContent: { response: { status: 200, body: request.query.challenge ?? 'ok' } } };
  return { content: [], structuredContent: { firings: [{ ...(request.body?.id ? { id: request.body.id } : {}), payload: request.body }] } };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Starts the service on a free loopback port. */
export async function startTriggerService(token = 'trigger-service-token-0123456789'): Promise<TriggerService> {
  const tickets: Record<string, unknown>[] = [];
  const calls: Record<string, Record<string, unknown>[]> = {};
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new Server({ name: 'trigger-service', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const input = (call.params.arguments ?? {}) as Record<string, unknown>;
      (calls[call.params.name] ??= []).push(input);
      return answer(call.params.name, input, tickets);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => { void transport.close(); void server.close(); });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.method === 'POST' ? await readJson(request) : undefined);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: Error) => { if (!response.headersSent) response.writeHead(500).end(error.message); });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/mcp`, token, tickets, calls,
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }),
  };
}
