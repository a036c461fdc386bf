/**
 * The MCP endpoint of incoming connections, `POST /api/mcp/<address>`: Streamable HTTP answered with JSON, no
 * protocol session kept (GET and DELETE are 405). An address that serves no MCP connection is 404. The caller is
 * admitted by the connection's mode, or as a member by their own sign-in (rules 1–2); a refused caller gets 401
 * with a Bearer challenge, naming `/api/mcp/<address>/.well-known/oauth-protected-resource` under oidc (rule 7),
 * which is served for oidc connections. Calls per minute per caller and per endpoint count only `tools/call`
 * messages that would start a turn, just before the session opens: 429 with Retry-After for the whole POST while
 * none of its calls opened a session, else a JSON-RPC error for each call over the rate (a batch's earlier calls
 * keep their answers).
 * Besides the workflows' tools, the platform tool `decide` takes the decision a session this caller started waits
 * for (core/connection/mcp-decisions.ts; docs/decisions.md D26 § 3).
 * Methods: initialize, ping, tools/list, tools/call, notifications. A browser origin the connection lists gets CORS
 * headers and its preflight (OPTIONS) answered; another site's is refused (403).
 *
 * Source: spec/platform-service.md § Tool-protocol endpoint, § Tool-call result status, § Endpoints (the /api/mcp
 * rows), § Incoming connection authentication, § Errors, § Limits (30 per caller / 300 per endpoint by default);
 * docs/decisions.md D8 § Endpoints (MCP).
 */
import { Elysia } from 'elysia';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, isObject, readCalls, refuseHeaders, respond, rpcErrors, type JsonRpcCall, type JsonRpcResponse } from '../../core/adapters/mcp-wire/json-rpc.ts';
import type { RedisConnection } from '../../core/adapters/redis/open-redis.ts';
import { callMcpTool, servedTools, type McpCallDeps, type ServedTools } from '../../core/connection/mcp-calls.ts';
import { DECIDE_TOOL, decideMcp, decideToolDefinition } from '../../core/connection/mcp-decisions.ts';
import { admitCaller, connectionByAddress, type AdmissionDeps, type AdmittedCaller, type ConnectionRecord } from '../../core/connection/index.ts';
import { endpointCallCounter, type EndpointCallCounter, type RateLimitedError } from '../../core/connection/endpoint-calls.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import type { RateChain } from '../../core/ports/rate-limiter.ts';
import { corsHeaders, endpointLimiters, endpointNotFound, endpointRequestFacts, preflight, withHeaders, type MemberSignIn } from './endpoint-rate.ts';
import { errorToResponse, json, maxJsonBytes, readBody } from './http-helpers.ts';

/** Seconds a `POST /api/mcp/<address>` may stay quiet: a tools/call waits up to 60 s for its turn, then answers. */
const MCP_CALL_IDLE_SECONDS = 90;

/** What the MCP endpoint needs. */
export interface McpRouteDeps extends MemberSignIn {
  calls: McpCallDeps;
  admission: AdmissionDeps;
  /** Counters live here when given (the shared queue store), else in this process. */
  rateRedis?: RedisConnection;
  /** The client address of a request (the request rules' view, trusted proxies applied). */
  clientAddress(request: Request): string | undefined;
  /** APP_BASE_URL: the base of the protected-resource address (else the request's own origin). */
  appBaseUrl?: string;
  version: string;
  logger: Logger;
}


/** The protected-resource metadata address of an endpoint. */
const metadataUrl = (base: string, address: string) => `${base}/api/mcp/${address}/.well-known/oauth-protected-resource`;

/** Mounts the endpoint and its protected-resource metadata. */
export function mcpRoutes(deps: McpRouteDeps) {
  const endpointRates = endpointLimiters(deps.rateRedis);
  const baseOf = (request: Request) => (deps.appBaseUrl ?? new URL(request.url).origin).replace(/\/+$/, '');
  const mcpConnection = async (address: string) => {
    const connection = await connectionByAddress(deps.calls, address);
    return connection?.protocol === 'mcp' ? connection : null;
  };
  const notAllowed = async (address: string) => ((await mcpConnection(address)) ? errorResponse(405, rpcErrors.server, 'Method not allowed.', { allow: 'POST' }) : endpointNotFound());
  return new Elysia()
    .options('/api/mcp/:address', async ({ request, params }) => {
      const connection = await mcpConnection(params.address);
      return connection ? preflight(connection, request, 'POST, OPTIONS') : endpointNotFound();
    })
    .post('/api/mcp/:address', async ({ request, params, server }) => {
      let cors: Record<string, string> = {};
      try {
        const connection = await mcpConnection(params.address);
        if (!connection) return endpointNotFound();
        cors = corsHeaders(connection, request.headers.get('origin'));
        // A tools/call waits up to 60 s for its turn before it answers: past the server's 30 s idle timeout.
        server?.timeout(request, MCP_CALL_IDLE_SECONDS);
        return withHeaders(await answer(deps, endpointRates, { connection, request, base: baseOf(request) }), cors);
      } catch (error) {
        return withHeaders(errorToResponse(error, deps.logger), cors);
      }
    }, { parse: 'none' })
    .get('/api/mcp/:address', ({ params }) => notAllowed(params.address))
    .delete('/api/mcp/:address', ({ params }) => notAllowed(params.address))
    .get('/api/mcp/:address/.well-known/oauth-protected-resource', async ({ request, params }) => {
      const connection = await mcpConnection(params.address);
      if (!connection || connection.auth !== 'oidc' || !connection.oidc) return endpointNotFound();
      return json({ resource: `${baseOf(request)}/api/mcp/${params.address}`, authorization_servers: [connection.oidc.issuer], bearer_methods_supported: ['header'] });
    });
}

/** The POST {@link answer} answers, and the connection it came to. */
interface McpPost {
  /** The MCP connection the request's address names. */
  connection: ConnectionRecord;
  /** The POST. */
  request: Request;
  /** The app's base URL (in the 401's resource-metadata link). */
  base: string;
}

/** Admission, header checks, the rates, then each JSON-RPC message of the body. */
async function answer(
  deps: McpRouteDeps, endpointRates: RateChain, { connection, request, base }: McpPost,
): Promise<Response> {
  const admission = await admitCaller(deps.admission, connection, endpointRequestFacts(deps, request));
  if (!admission.admitted && admission.status === 401) {
    const challenge = connection.auth === 'oidc' ? `Bearer resource_metadata="${metadataUrl(base, connection.address)}"` : 'Bearer';
    return errorResponse(401, rpcErrors.server, `Unauthorized: ${admission.message}`, { 'www-authenticate': challenge });
  }
  if (!admission.admitted) return json({ error: { code: admission.code, message: admission.message } }, admission.status);
  const refused = refuseHeaders(request);
  if (refused) return refused;
  const body = readCalls(new TextDecoder().decode(await readBody(request, maxJsonBytes)));
  if (body instanceof Response) return body;
  // Sessions opened by this POST so far (calls counted): a call over a rate before any is the whole POST's 429; after
  // one, that call (and each later one over the rate) is answered on its own, so the answer tells which started.
  const calls = endpointCallCounter({ endpointRates }, connection, admission.caller.rateKey);
  let served: ServedTools | undefined;
  const tools = async () => (served ??= await servedTools(deps.calls, connection));
  const responses: JsonRpcResponse[] = [];
  for (const call of body.calls) {
    let response: JsonRpcResponse | undefined;
    try {
      response = await answerCall(deps, { connection, caller: admission.caller, tools, calls }, call);
    } catch (error) {
      if (!isPlatformError(error, 'rate_limited')) throw error;
      const refusal = error as RateLimitedError;
      if (calls.counted === 0) return wholePostRefused(refusal);
      const data = { retryAfterSeconds: refusal.retryAfterSeconds };
      const refused = { code: rpcErrors.server, message: error.message, data };
      response = { jsonrpc: '2.0', id: call.id ?? null, error: refused };
    }
    if (response) responses.push(response);
  }
  return respond(responses, body.batch);
}

/**
 * The 429 answering a whole POST whose first call that would open a session is over the caller's or the endpoint's
 * calls per minute (later ones get that call's JSON-RPC error, `data.retryAfterSeconds`).
 *
 * Source: spec/platform-service.md § Errors (rate-limited endpoint call: before any session opens); docs/decisions.md
 * D17 § 6
 */
function wholePostRefused(refusal: RateLimitedError): Response {
  const body = { jsonrpc: '2.0', error: { code: rpcErrors.server, message: refusal.message }, id: null };
  return new Response(JSON.stringify(body), {
    status: 429, headers: { 'content-type': 'application/json', 'retry-after': String(refusal.retryAfterSeconds) },
  });
}

const logged = new Set<string>();

/** Logs each unlisted tool of a build once per process (a deployment error: a `file` entry). */
function logUnlisted(deps: McpRouteDeps, connection: ConnectionRecord, served: ServedTools): void {
  for (const u of served.unlisted) {
    const key = `${served.build?.buildId}:${connection._id}:${u.workflow}:${u.trigger}`;
    if (logged.has(key)) continue;
    logged.add(key);
    deps.logger.warn({ connection: connection.identifier, environment: connection.environment, workflow: u.workflow, trigger: u.trigger }, u.message);
  }
}

/** What one POST's messages share: the connection, the admitted caller, the served tools (read once), the rate count. */
interface PostContext { connection: ConnectionRecord; caller: AdmittedCaller; tools(): Promise<ServedTools>; calls: EndpointCallCounter }

/** The response to one JSON-RPC message; undefined for a notification. @throws PlatformError `rate_limited` (429) */
async function answerCall(deps: McpRouteDeps, post: PostContext, call: JsonRpcCall): Promise<JsonRpcResponse | undefined> {
  const { connection, tools } = post;
  if (call.id === undefined) return undefined;
  const id = call.id;
  try {
    switch (call.method) {
      case 'initialize': return { jsonrpc: '2.0', id, result: initializeResult(deps, connection, call.params) };
      case 'ping': return { jsonrpc: '2.0', id, result: {} };
      case 'tools/list': {
        const served = await tools();
        logUnlisted(deps, connection, served);
        const listed = served.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
        return { jsonrpc: '2.0', id, result: { tools: [...listed, decideToolDefinition] } };
      }
      case 'tools/call': {
        const name = call.params?.name;
        const args = call.params?.arguments ?? {};
        if (typeof name !== 'string' || !isObject(args)) return { jsonrpc: '2.0', id, error: { code: rpcErrors.invalidParams, message: 'Invalid params: tools/call needs "name" (a string) and optional "arguments" (an object).' } };
        if (name === DECIDE_TOOL) return { jsonrpc: '2.0', id, result: await decideMcp(deps.calls, connection, await tools(), { caller: post.caller, args, calls: post.calls }) };
        const toolCall = { name, args, callerKind: post.caller.kind, subject: post.caller.subject, calls: post.calls };
        return { jsonrpc: '2.0', id, result: await callMcpTool(deps.calls, connection, await tools(), toolCall) };
      }
      default: return { jsonrpc: '2.0', id, error: { code: rpcErrors.methodNotFound, message: `Method not found: ${call.method}` } };
    }
  } catch (error) {
    if (isPlatformError(error, 'rate_limited')) throw error;
    deps.logger.error({ err: String(error), method: call.method, connection: connection.identifier }, 'MCP call failed unexpectedly');
    return { jsonrpc: '2.0', id, error: { code: rpcErrors.internal, message: 'The call failed unexpectedly; try again, and tell the operator if it persists.' } };
  }
}

/** initialize: the client's protocol version when supported, else the latest; tools only. */
function initializeResult(deps: McpRouteDeps, connection: ConnectionRecord, params: Record<string, unknown> | undefined) {
  const requested = params?.protocolVersion;
  const protocolVersion = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
  return { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: `cairn/${connection.identifier}`, version: deps.version } };
}
