/**
 * The wire of a stateless MCP Streamable HTTP endpoint (JSON responses, no protocol session):
 * header checks, JSON-RPC 2.0 framing, and the JSON error responses the MCP SDK's own transport
 * gives (same statuses, codes and texts), so clients see no difference.
 *
 * Shared by the semantic service (bins/semantic-mcp) and the API's MCP endpoint of incoming connections.
 *
 * Source: spec/semantic-query-service.md § Endpoints (JSON-RPC, tools/list and tools/call);
 * spec/platform-service.md § Tool-protocol endpoint;
 * MCP specification § Transports (Streamable HTTP), § Base protocol (JSON-RPC).
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC id: a string or a number (null only in errors about unreadable messages). */
export type JsonRpcId = string | number;

/** One JSON-RPC request (has an id) or notification (has none). */
export interface JsonRpcCall {
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/** One JSON-RPC response. */
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: { code: number; message: string; data?: unknown } };

/** JSON-RPC error codes used here. */
export const rpcErrors = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
} as const;

/** Messages of one POST, at most (a JSON-RPC batch, protocol 2025-03-26 and earlier). */
export const maxBatchSize = 100;

/** A JSON error response in the SDK transport's shape: `{ jsonrpc, error: { code, message }, id: null }`. */
export function errorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * The answer to a request that is not a readable MCP POST, or undefined when the headers are fine:
 * 405 for GET, DELETE and others (no stream and no session here), 406 without both JSON and event
 * stream in Accept, 415 without a JSON body, 400 for an unsupported `MCP-Protocol-Version`.
 */
export function refuseHeaders(request: Request): Response | undefined {
  if (request.method !== 'POST') return errorResponse(405, rpcErrors.server, 'Method not allowed.', { allow: 'POST' });
  const accept = request.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return errorResponse(
      406,
      rpcErrors.server,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  }
  if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
    return errorResponse(415, rpcErrors.server, 'Unsupported Media Type: Content-Type must be application/json');
  }
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return errorResponse(
      400,
      rpcErrors.server,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
        SUPPORTED_PROTOCOL_VERSIONS.join(', ')
      })`,
    );
  }
  return undefined;
}

/**
 * The messages of a POST body: one message or a batch. Responses a client sends (to server
 * requests, which this server never makes) are dropped.
 * @returns the calls, whether the body was a batch (its answer is then an array) and how many messages it held
 *   (responses included: what a rate limit counts), or a 400 response for unreadable JSON, a non-JSON-RPC message
 *   or a batch that is empty or larger than {@link maxBatchSize}
 */
export function readCalls(text: string): { calls: JsonRpcCall[]; batch: boolean; messages: number } | Response {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResponse(400, rpcErrors.parse, 'Parse error: Invalid JSON');
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > maxBatchSize) {
    return errorResponse(400, rpcErrors.invalidRequest, `Invalid Request: a batch holds 1 to ${maxBatchSize} messages`);
  }
  const calls: JsonRpcCall[] = [];
  for (const message of messages) {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      return errorResponse(400, rpcErrors.parse, 'Parse error: Invalid JSON-RPC message');
    }
    if (typeof message.method !== 'string') {
      if ('result' in message || 'error' in message) continue;
      return errorResponse(400, rpcErrors.parse, 'Parse error: Invalid JSON-RPC message');
    }
    const hasId = 'id' in message;
    if (hasId && typeof message.id !== 'string' && typeof message.id !== 'number') {
      return errorResponse(400, rpcErrors.parse, 'Parse error: Invalid JSON-RPC message');
    }
    if (message.params !== undefined && !isObject(message.params)) {
      return errorResponse(400, rpcErrors.parse, 'Parse error: Invalid JSON-RPC message');
    }
    calls.push({
      method: message.method,
      ...(hasId ? { id: message.id as JsonRpcId } : {}),
      ...(message.params ? { params: message.params as Record<string, unknown> } : {}),
    });
  }
  return { calls, batch: Array.isArray(body), messages: messages.length };
}

/** The HTTP answer for the responses of one POST: 202 without a body when there are none. */
export function respond(responses: JsonRpcResponse[], batch: boolean): Response {
  if (responses.length === 0) return new Response(null, { status: 202 });
  return new Response(JSON.stringify(batch ? responses : responses[0]), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** A plain object (not an array or null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
