/**
 * One MCP Streamable HTTP request to a project endpoint, answered statelessly with JSON (no protocol
 * session), so any replica behind one address can answer any request. cairn speaks this small,
 * fixed part of the protocol itself (initialize, ping, tools/list, tools/call, notifications): the
 * SDK's server needs a new server and transport per stateless request and validates every message
 * and result with its schemas, about a millisecond a call. What every request needs is built once:
 * the tools/list answer and the parsed planes. Compatibility is checked with the SDK's own client.
 *
 * Source: spec/semantic-query-service.md § Endpoints, § Tools, § Authentication.
 */
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/ports/logger.ts';
import type { QueryEngine } from '../../core/ports/query-engine.ts';
import type { RateLimiter } from '../../core/ports/rate-limiter.ts';
import type { CallLogWriter } from '../../core/semantic/call-log-writer.ts';
import type { SemanticDeps } from '../../core/semantic/deps.ts';
import { assemblePlane, type AssembledPlane } from '../../core/semantic/planes.ts';
import type { Plane, ProjectRecord, TokenRecord } from '../../core/semantic/records.ts';
import { callTool } from '../../core/semantic/tools/call-tool.ts';
import { toolDefinitions } from '../../core/semantic/tools/tool-definitions.ts';
import { batchAnswer } from './batch-answer.ts';
import { isObject, readCalls, refuseHeaders, rpcErrors, type JsonRpcCall, type JsonRpcResponse } from './json-rpc.ts';
import type { ServerTiming } from './server-timing.ts';
import { inToolCallSpan } from './call-span.ts';
import { recordSemanticQuery } from '../../core/telemetry/instruments.ts';

/** What the endpoint needs besides the request. */
export interface McpEndpointDeps {
  deps: SemanticDeps;
  engine: QueryEngine;
  logger: Logger;
  version: string;
  /** Parsed planes by content key (shared across requests of this process). */
  planeCache: Map<string, AssembledPlane>;
  /** Records each tools/call after its answer (drained on a clean stop). */
  callLog: CallLogWriter;
  /** request_improvement per token: improvementsPerTokenPerDay per 86,400 s (core/semantic/tools/tool-context.ts). */
  improvementLimiter: RateLimiter;
}

const instructions = 'Semantic models of this project. Call list_semantic_models, then get_semantic_model and get_datasets to learn datasets and fields, then execute_query with SQL over bare dataset names. Ask with request_improvement when the model lacks something.';

/** The tools/list answer, built once: TypeBox schemas are JSON Schema (a JSON round trip drops TypeBox's symbol keys). */
const toolList: ListToolsResult = {
  tools: toolDefinitions.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toJsonSchema(t.inputSchema) as { type: 'object' },
    ...(t.outputSchema ? { outputSchema: toJsonSchema(t.outputSchema) as { type: 'object' } } : {}),
    annotations: { title: t.title, ...t.annotations },
  })),
};

/** The tools' names (a metric's attribute takes no other). */
const toolNames: ReadonlySet<string> = new Set(toolDefinitions.map((t) => t.name));

/** The authenticated caller of one request. */
export interface McpCaller {
  project: ProjectRecord;
  token: TokenRecord;
  plane: Plane;
}

/** How {@link handleMcpRequest} times a request, and the body already read. */
export interface McpRequestHandling {
  /** Times the request's phases (the Server-Timing header). */
  timing: ServerTiming;
  /** The body the caller read already, having counted its calls. Default: read from the request. */
  read?: ReadCalls;
}

/**
 * Answers one authenticated MCP request for `caller.project` on `caller.plane`, timing its phases:
 * the header refusals of {@link refuseHeaders}, then each JSON-RPC call of the body in order (`read`: the body
 * the caller read already, having counted its calls); {@link batchAnswer} bounds the whole answer. Once the
 * client has gone (`request.signal` aborts: Bun aborts it when the connection closes, and the front proxy
 * closes its upstream connection when its own client goes) a running query is interrupted and the calls
 * not yet run are dropped, each logged as cancelled (docs/decisions.md D18 § 2).
 */
export async function handleMcpRequest(
  env: McpEndpointDeps, request: Request, caller: McpCaller, { timing, read }: McpRequestHandling,
): Promise<Response> {
  const refused = refuseHeaders(request);
  if (refused) return refused;
  const body = read ?? readCalls(await request.text());
  if (body instanceof Response) return body;
  const answer = batchAnswer(body.calls);
  for (const call of body.calls) {
    if (request.signal.aborted) {
      logCancelled(env, caller, call, 'call dropped: its client went away before it ran');
      continue;
    }
    if (answer.full) {
      answer.skip(call);
      continue;
    }
    const response = await answerCall(env, call, caller, { timing, signal: request.signal, headers: request.headers });
    if (response) answer.add(call, response);
  }
  return answer.respond(body.batch);
}

/** What {@link readCalls} answers: the calls of a body, or the 400 for one that is not readable. */
export type ReadCalls = ReturnType<typeof readCalls>;

/** The server log line of a call its client did not wait for (ids only: no SQL, no arguments). */
function logCancelled(env: McpEndpointDeps, caller: McpCaller, call: JsonRpcCall, message: string): void {
  const name = call.params?.name;
  const tool = call.method === 'tools/call' && typeof name === 'string' ? name.slice(0, 64) : undefined;
  const method = call.method.slice(0, 64);
  const fields = { project: caller.project.slug, tokenId: caller.token._id, method, tool, status: 'cancelled' };
  env.logger.info(fields, message);
}

/** How one call of a request runs: timed with the request, stopped when its client goes. */
interface CallRun {
  /** Times the call's phases (the request's Server-Timing header). */
  timing: ServerTiming;
  /** Aborts when the client has gone: a running query is interrupted. */
  signal: AbortSignal;
  /** The request's headers: their `traceparent` parents a call whose `params._meta` carries none (./call-span.ts). */
  headers?: Headers;
}

/** The response to one call; undefined for a notification (no id). */
async function answerCall(
  env: McpEndpointDeps, call: JsonRpcCall, caller: McpCaller, run: CallRun,
): Promise<JsonRpcResponse | undefined> {
  if (call.id === undefined) return undefined;
  const id = call.id;
  try {
    switch (call.method) {
      case 'initialize': return { jsonrpc: '2.0', id, result: initializeResult(caller, env.version, call.params) };
      case 'ping': return { jsonrpc: '2.0', id, result: {} };
      case 'tools/list': return { jsonrpc: '2.0', id, result: toolList };
      case 'tools/call': {
        const name = call.params?.name;
        const args = call.params?.arguments;
        if (typeof name !== 'string' || (args !== undefined && !isObject(args))) {
          return { jsonrpc: '2.0', id, error: { code: rpcErrors.invalidParams, message: 'Invalid params: tools/call needs "name" (a string) and optional "arguments" (an object).' } };
        }
        const answer = () => callToolResult(env, caller, { name, args }, run);
        return { jsonrpc: '2.0', id, result: await inToolCallSpan({ name, params: call.params }, run.headers, answer) };
      }
      default: return { jsonrpc: '2.0', id, error: { code: rpcErrors.methodNotFound, message: `Method not found: ${call.method}` } };
    }
  } catch (error) {
    env.logger.error({ err: String(error), method: call.method, project: caller.project.slug }, 'MCP call failed unexpectedly');
    return { jsonrpc: '2.0', id, error: { code: rpcErrors.internal, message: 'The call failed unexpectedly; try again, and tell the operator if it persists.' } };
  }
}

/** initialize: the client's protocol version when supported, else the latest; tools only. */
function initializeResult(caller: McpCaller, version: string, params: Record<string, unknown> | undefined) {
  const requested = params?.protocolVersion;
  const protocolVersion = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
  return { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: `cairn-semantic/${caller.project.slug}`, version }, instructions };
}

/** tools/call: the tool's text and structured content, or a tool error the agent reads (isError). */
async function callToolResult(
  env: McpEndpointDeps, caller: McpCaller, { name, args }: { name: string; args: Record<string, unknown> | undefined },
  { timing, signal }: CallRun,
): Promise<CallToolResult> {
  const plane = await timing.measure('plane', () => assemblePlane(env.deps, caller.project, caller.plane, env.planeCache));
  const context = {
    deps: env.deps, engine: timedEngine(env.engine, timing), project: caller.project, token: caller.token, plane,
    callLog: env.callLog, improvementLimiter: env.improvementLimiter, signal,
  };
  const started = performance.now();
  const outcome = await timing.measure('tool', () => callTool(context, name, args));
  // cairn.semantic.query.duration and .refusals (docs/decisions.md D25 § 2): the six tools by name, else `other`.
  const tool = toolNames.has(name) ? name : 'other';
  recordSemanticQuery((performance.now() - started) / 1000, tool, outcome.ok ? undefined : outcome.code);
  if (!outcome.ok && outcome.code === 'query_cancelled') {
    const call = { method: 'tools/call', params: { name } };
    logCancelled(env, caller, call, 'call cancelled: its client went away; its query was stopped');
  }
  if (!outcome.ok) {
    if (outcome.cause) env.logger.error({ tool: name, project: caller.project.slug, cause: String((outcome.cause as { error?: unknown }).error), reference: (outcome.cause as { reference?: string }).reference }, 'tool failed unexpectedly');
    return { isError: true, content: [{ type: 'text', text: outcome.message }] };
  }
  return {
    content: [{ type: 'text', text: outcome.result.text }],
    ...(outcome.result.structured ? { structuredContent: outcome.result.structured } : {}),
  };
}

/**
 * `engine` with its parse and execute calls timed as the `parse` and `engine` phases of `timing`, plus the
 * query process's phases of a result (`prepare`, `run`, `convert`: EngineTiming); `prepareScope` passes through.
 */
function timedEngine(engine: QueryEngine, timing: ServerTiming): QueryEngine {
  return {
    parse: (sql, partition) => timing.measure('parse', () => engine.parse(sql, partition)),
    async execute(request) {
      const result = await timing.measure('engine', () => engine.execute(request));
      // The query process's own phases (prepare, run, convert): the rest of `engine` is the pipe and the pool.
      for (const [phase, ms] of Object.entries(result.timing ?? {})) timing.add(phase, ms);
      return result;
    },
    // Forwarded, not timed: it starts work in the background and answers at once.
    prepareScope: (target, owner) => engine.prepareScope?.(target, owner),
    close: () => engine.close(),
  };
}

function toJsonSchema(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
