/**
 * One MCP Streamable HTTP request to a project endpoint, with no protocol session, so any replica
 * behind one address can answer any request. The SDK needs a fresh transport (and so a server) per
 * stateless request; everything else a request needs is built once: the tools/list answer, the
 * handlers' shared parts, the parsed planes.
 *
 * Source: ../shared/spec/semantic-query-service.md § Endpoints, § Tools, § Authentication.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/ports/logger.ts';
import type { QueryEngine } from '../../core/ports/query-engine.ts';
import type { CallLogWriter } from '../../core/semantic/call-log-writer.ts';
import type { SemanticDeps } from '../../core/semantic/deps.ts';
import { assemblePlane, type AssembledPlane } from '../../core/semantic/planes.ts';
import type { Plane, ProjectRecord, TokenRecord } from '../../core/semantic/records.ts';
import { callTool } from '../../core/semantic/tools/call-tool.ts';
import { toolDefinitions } from '../../core/semantic/tools/tool-definitions.ts';
import type { ServerTiming } from './server-timing.ts';

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

/** The authenticated caller of one request. */
export interface McpCaller {
  project: ProjectRecord;
  token: TokenRecord;
  plane: Plane;
}

/** Answers one authenticated MCP request for `caller.project` on `caller.plane`, timing its phases. */
export async function handleMcpRequest(env: McpEndpointDeps, request: Request, caller: McpCaller, timing: ServerTiming): Promise<Response> {
  const server = new Server({ name: `cairn-semantic/${caller.project.slug}`, version: env.version }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => toolList);
  server.setRequestHandler(CallToolRequestSchema, async (call): Promise<CallToolResult> => {
    const plane = await timing.measure('plane', () => assemblePlane(env.deps, caller.project, caller.plane, env.planeCache));
    const context = { deps: env.deps, engine: timedEngine(env.engine, timing), project: caller.project, token: caller.token, plane, callLog: env.callLog };
    const outcome = await timing.measure('tool', () => callTool(context, call.params.name, call.params.arguments));
    if (!outcome.ok) {
      if (outcome.cause) env.logger.error({ tool: call.params.name, project: caller.project.slug, cause: String((outcome.cause as { error?: unknown }).error), reference: (outcome.cause as { reference?: string }).reference }, 'tool failed unexpectedly');
      return { isError: true, content: [{ type: 'text', text: outcome.message }] };
    }
    return {
      content: [{ type: 'text', text: outcome.result.text }],
      ...(outcome.result.structured ? { structuredContent: outcome.result.structured } : {}),
    };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/** `engine` with its parse and execute calls timed as the `parse` and `engine` phases of `timing`. */
function timedEngine(engine: QueryEngine, timing: ServerTiming): QueryEngine {
  return {
    parse: (sql) => timing.measure('parse', () => engine.parse(sql)),
    execute: (request) => timing.measure('engine', () => engine.execute(request)),
    close: () => engine.close(),
  };
}

function toJsonSchema(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
