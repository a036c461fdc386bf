/**
 * A tool collection's service for credential tests: a real MCP server (the SDK's Server over stateless Streamable
 * HTTP, JSON answers) on 127.0.0.1 that tells who its bearer token stands for:
 * - a static token of `tokens` stands for whom the map names;
 * - with `jwtIssuer`, a JWT access token signed by a key of `${jwtIssuer}/jwks` and naming that issuer stands for
 *   `${client_id}:${sub}` (the JWKS is fetched with node:https trusting `ca`, again when a token names an unknown kid);
 * - anything else, or no token, is answered 401 `{"error":"invalid_token"}` before MCP is reached.
 * Tools: `whoami` answers `{who}` (JSON text and structured content), `echo` answers its input back.
 * Every request's bearer (and JSON-RPC method) and every tool call (with who called) is recorded.
 */
import { createServer, get as httpGet, type IncomingMessage, type ServerResponse } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';

/** A running credential service. */
export interface CredentialService {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  endpoint: string;
  /** Every request's bearer token as received (in order; '' when none), with the JSON-RPC method it carried ('' when unparsable). */
  seen: Array<{ bearer: string; method: string }>;
  /** Every tools/call: tool name, input, and who the bearer identified. */
  calls: Array<{ name: string; input: Record<string, unknown>; who: string }>;
  close(): Promise<void>;
}

/** What the service accepts as bearer tokens. */
export interface CredentialServiceOptions {
  /** Accepted static bearer tokens and who each stands for (e.g. `{ 'org-a-token-0123456789': 'org-a' }`). */
  tokens?: Record<string, string>;
  /** Also accept JWT access tokens of this issuer (its `/jwks`, its `iss`); who = `${client_id}:${sub}`. */
  jwtIssuer?: string;
  /** PEM certificate to trust when fetching an https issuer's JWKS (a self-signed test provider). */
  ca?: string;
}

const tools = [
  { name: 'whoami', description: 'Who the bearer token stands for.', inputSchema: { type: 'object' as const, properties: {} } },
  { name: 'echo', description: 'Answers its input back.', inputSchema: { type: 'object' as const } },
];

function answer(name: string, input: Record<string, unknown>, who: string): CallToolResult {
  if (name === 'whoami') return { content: [{ type: 'text', text: JSON.stringify({ who }) }], structuredContent: { who } };
  if (name === 'echo') return { content: [{ type: 'text', text: JSON.stringify(input) }], structuredContent: input };
  return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** GETs `url` as JSON (node:http(s), trusting `ca` when given). */
function getJson(url: string, ca?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage): void => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`GET ${url} answered ${res.statusCode}`));
        else try { resolve(JSON.parse(text)); } catch (error) { reject(error as Error); }
      });
    };
    const req = url.startsWith('https:') ? httpsGet(url, { ...(ca ? { ca } : {}) }, onResponse) : httpGet(url, onResponse);
    req.on('error', reject);
  });
}

/** Verifies JWT access tokens of `issuer` with its JWKS, fetched at the first token and again for an unknown kid. */
function jwtVerifier(issuer: string, ca?: string): (token: string) => Promise<string | undefined> {
  let keys: { kids: Set<string>; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  const load = async () => {
    const jwks = await getJson(`${issuer}/jwks`, ca) as JSONWebKeySet;
    keys = { kids: new Set(jwks.keys.map((k) => k.kid ?? '')), set: createLocalJWKSet(jwks) };
    return keys;
  };
  return async (token) => {
    let kid: string | undefined;
    try { ({ kid } = decodeProtectedHeader(token)); } catch { return undefined; }
    const current = keys && (!kid || keys.kids.has(kid)) ? keys : await load();
    try {
      const { payload } = await jwtVerify(token, current.set, { issuer });
      return typeof payload.sub === 'string' ? `${String(payload.client_id)}:${payload.sub}` : undefined;
    } catch {
      return undefined;
    }
  };
}

/** Starts the service on a free loopback port. */
export async function startCredentialService(options: CredentialServiceOptions = {}): Promise<CredentialService> {
  const seen: CredentialService['seen'] = [];
  const calls: CredentialService['calls'] = [];
  const staticTokens = new Map(Object.entries(options.tokens ?? {}));
  const verifyJwt = options.jwtIssuer ? jwtVerifier(options.jwtIssuer.replace(/\/$/, ''), options.ca) : undefined;
  const identify = async (bearer: string): Promise<string | undefined> => {
    if (!bearer) return undefined;
    return staticTokens.get(bearer) ?? (verifyJwt && bearer.split('.').length === 3 ? await verifyJwt(bearer).catch(() => undefined) : undefined);
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = request.method === 'POST' ? await readBody(request) : '';
    let body: unknown;
    try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
    const method = body && typeof body === 'object' && !Array.isArray(body) && typeof (body as { method?: unknown }).method === 'string' ? (body as { method: string }).method : '';
    const authorization = request.headers.authorization ?? '';
    const bearer = /^Bearer /i.test(authorization) ? authorization.slice(7).trim() : '';
    seen.push({ bearer, method });
    const who = await identify(bearer);
    if (who === undefined) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end('{"error":"invalid_token"}');
      return;
    }
    if (request.method === 'POST' && body === undefined) {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const server = new Server({ name: 'credential-service', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const input = (call.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: call.params.name, input, who });
      return answer(call.params.name, input, who);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => { void transport.close(); void server.close(); });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: Error) => { if (!response.headersSent) response.writeHead(500).end(error.message); });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/mcp`, seen, calls,
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }),
  };
}
