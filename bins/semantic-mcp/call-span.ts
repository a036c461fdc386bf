/**
 * The server span of one `tools/call` (MCP semantic conventions): its parent is the trace context the call carries
 * in `params._meta.traceparent` (and `tracestate`), else the HTTP request's `traceparent` header, so a platform
 * agent's call continues the dispatcher's trace. Named `tools/call <tool>` with `mcp.method.name`,
 * `gen_ai.tool.name` (one of the six tools, else `_OTHER`: a caller's text never names a span) and
 * `gen_ai.operation.name` `execute_tool`; never the arguments or the answer. Source: docs/decisions.md D25 § 1.
 */
import { propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { inSpan } from '../../core/telemetry/spans.ts';
import { toolDefinitions } from '../../core/semantic/tools/tool-definitions.ts';

const toolNames: ReadonlySet<string> = new Set(toolDefinitions.map((t) => t.name));

/** The carrier of a call: `params._meta` when it holds a string `traceparent`, else the request's headers. */
function carrierOf(params: Record<string, unknown> | undefined, headers: Headers | undefined): Record<string, string> {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (meta && typeof meta.traceparent === 'string') {
    return {
      traceparent: meta.traceparent,
      ...(typeof meta.tracestate === 'string' ? { tracestate: meta.tracestate } : {}),
    };
  }
  const traceparent = headers?.get('traceparent');
  const tracestate = headers?.get('tracestate');
  return traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : {};
}

/**
 * Runs `run` (the call's answer) inside the call's server span; an error result (`isError`) or a failure marks it.
 * @param headers - the HTTP request's headers (the fallback carrier)
 */
export function inToolCallSpan(
  call: { name: string; params: Record<string, unknown> | undefined },
  headers: Headers | undefined,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const tool = toolNames.has(call.name) ? call.name : '_OTHER';
  const parent = propagation.extract(ROOT_CONTEXT, carrierOf(call.params, headers));
  return inSpan(`tools/call ${tool}`, {
    parent,
    kind: SpanKind.SERVER,
    attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' },
    judge: (result: CallToolResult) => (result.isError ? 'tool_error' : undefined),
  }, run);
}
