/**
 * One tool call into a service, as a {@link ToolCallResult}: the tool's own result, or an error result saying that
 * the service could not be reached, refused the request or did not answer in time. Only a cancellation throws.
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../../telemetry/spans.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ToolCallResult } from '../../ports/tool-catalog.ts';
import { failureReason, seconds } from './failure-reason.ts';
import type { ServiceCallOptions, ServiceConnection } from './service-connection.ts';

/** The parts of a catalog entry a call needs. */
export interface CallableService {
  /** The collection name the model sees. */
  collection: string;
  /** The service's token (only to keep it out of messages). */
  config: { token: string };
  connection: ServiceConnection;
}

/**
 * Calls `name` on the service, in a client span `tools/call <name>` (MCP semantic conventions: `mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.operation.name` `execute_tool`; never the arguments or the result) whose context the
 * request carries in `params._meta.traceparent` (./service-connection.ts). Source: docs/decisions.md D25 § 1.
 * @throws PlatformError `tool_cancelled` when `options.signal` is aborted before or during the call
 */
export function callServiceTool(
  service: CallableService,
  name: string,
  input: unknown,
  options: ServiceCallOptions,
): Promise<ToolCallResult> {
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': name,
    'gen_ai.operation.name': 'execute_tool',
  };
  // A tool error or a failure is marked with its kind, never its text (core/telemetry/spans.ts).
  const judge = (result: ToolCallResult) => (result.isError ? 'tool_error' : undefined);
  return inSpan(
    `tools/call ${name}`,
    { kind: SpanKind.CLIENT, attributes, judge },
    () => callTool(service, name, input, options),
  );
}

async function callTool(
  service: CallableService,
  name: string,
  input: unknown,
  options: ServiceCallOptions,
): Promise<ToolCallResult> {
  const { collection } = service;
  if (options.signal?.aborted) throw cancelled(collection, name);
  try {
    return toCallResult(await service.connection.callTool(name, input, options));
  } catch (error) {
    if (options.signal?.aborted) throw cancelled(collection, name);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return {
        isError: true,
        output: `The ${collection} service did not answer ${name} within ${
          seconds(options.timeoutMs)
        }. Try a smaller request, or try again later.`,
      };
    }
    if (error instanceof McpError) {
      return {
        isError: true,
        output: `The ${collection} service refused the call of ${name}: ${failureReason(error, service.config.token)}`,
      };
    }
    return unreachable(collection, failureReason(error, service.config.token));
  }
}

/** The error result of a service that could not be reached. */
export function unreachable(collection: string, reason: string): ToolCallResult {
  return { isError: true, output: `The ${collection} service could not be reached: ${reason}. Try again later.` };
}

/** The structured content when there is one, else the text of the content items joined with newlines. */
function toCallResult(result: CallToolResult): ToolCallResult {
  const isError = result.isError === true;
  if (result.structuredContent !== undefined) return { output: result.structuredContent, isError };
  const texts = (result.content ?? []).map((item) => (item.type === 'text' ? item.text : `[${item.type} content]`));
  return { output: texts.join('\n'), isError };
}

function cancelled(collection: string, name: string): PlatformError {
  return new PlatformError('tool_cancelled', `The call of ${collection}.${name} was cancelled before it finished.`);
}
