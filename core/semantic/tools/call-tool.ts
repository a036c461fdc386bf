/**
 * Runs one tools/call: checks the arguments against the tool's input schema, runs the handler,
 * and records the call in the call log (tool, status, token, time, full input and output).
 *
 * Source: ../shared/spec/semantic-query-service.md § Tools, § Events, § Resources (call log entry).
 */
import { Value } from '@sinclair/typebox/value';
import { isPlatformError, PlatformError } from '../../ports/platform-error.ts';
import { recordCall } from '../call-log.ts';
import { requestImprovement } from './improvement-tool.ts';
import { getDatasets, getSemanticModel, listSemanticModels } from './model-tools.ts';
import { executeQuery, executeStoredQuery } from './query-tools.ts';
import { toolDefinitions, type ToolName } from './tool-definitions.ts';
import type { ToolContext, ToolResult } from './tool-context.ts';

/** Outcome of {@link callTool}: a result, or an error text for the agent (an MCP tool error). */
export type CallOutcome = { ok: true; result: ToolResult } | { ok: false; code: string; message: string; cause?: unknown };

/** Calls the handler of tool `name` after the schema check. Unknown tools and bad arguments are tool errors. */
export async function callTool(ctx: ToolContext, name: string, args: unknown): Promise<CallOutcome> {
  const started = ctx.deps.clock.now();
  const outcome = await runTool(ctx, name, args ?? {});
  const finished = ctx.deps.clock.now();
  const modelName = typeof (args as { modelName?: unknown })?.modelName === 'string' ? (args as { modelName: string }).modelName : undefined;
  await recordCall(ctx.deps, {
    projectId: ctx.project._id,
    tokenId: ctx.token._id,
    tool: name,
    status: outcome.ok ? 'success' : 'error',
    at: started,
    plane: ctx.plane.plane,
    input: args ?? {},
    output: outcome.ok ? { text: outcome.result.text, ...(outcome.result.structured ? { structured: outcome.result.structured } : {}) } : { error: outcome.message, code: outcome.code },
    durationMs: finished.getTime() - started.getTime(),
    ...(modelName ? { modelName } : {}),
  });
  return outcome;
}

async function runTool(ctx: ToolContext, name: string, args: unknown): Promise<CallOutcome> {
  const definition = toolDefinitions.find((t) => t.name === name);
  if (!definition) {
    return { ok: false, code: 'unknown_tool', message: `Unknown tool "${name}". Tools: ${toolDefinitions.map((t) => t.name).join(', ')}.` };
  }
  const problems = [...Value.Errors(definition.inputSchema, args)];
  if (problems.length > 0) {
    const lines = problems.slice(0, 5).map((p) => `${p.path || '(arguments)'}: ${p.message}`);
    return { ok: false, code: 'invalid_arguments', message: `Invalid arguments for ${name}: ${lines.join('; ')}. See the tool's input schema.` };
  }
  try {
    return { ok: true, result: await dispatch(ctx, definition.name, args) };
  } catch (error) {
    if (isPlatformError(error)) return { ok: false, code: error.code, message: error.message };
    const reference = ctx.deps.ids.newId();
    return { ok: false, code: 'internal', message: `The tool failed unexpectedly; the operator can find reference ${reference} in the service log.`, cause: { reference, error } };
  }
}

function dispatch(ctx: ToolContext, name: ToolName, args: unknown): ToolResult | Promise<ToolResult> {
  switch (name) {
    case 'list_semantic_models': return listSemanticModels(ctx);
    case 'get_semantic_model': return getSemanticModel(ctx, args as never);
    case 'get_datasets': return getDatasets(ctx, args as never);
    case 'execute_query': return executeQuery(ctx, args as never);
    case 'execute_stored_query': return executeStoredQuery(ctx, args as never);
    case 'request_improvement': return requestImprovement(ctx, args as never);
    default: throw new PlatformError('unknown_tool', `Unknown tool "${String(name)}".`);
  }
}
