/**
 * Runs one tools/call: checks the arguments against the tool's input schema, runs the handler,
 * and records the call in the call log (tool, status, token, time, full input and output).
 *
 * Source: spec/semantic-query-service.md § Tools, § Events, § Resources (call log entry).
 */
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isPlatformError, PlatformError } from '../../ports/platform-error.ts';
import { requestImprovement } from './improvement-tool.ts';
import { getDatasets, getSemanticModel, listSemanticModels } from './model-tools.ts';
import { executeQuery, executeStoredQuery } from './query-tools.ts';
import {
  type ExecuteQueryInput,
  type ExecuteStoredQueryInput,
  type GetDatasetsInput,
  type GetSemanticModelInput,
  type RequestImprovementInput,
  toolDefinitions,
  type ToolName,
} from './tool-definitions.ts';
import type { ToolContext, ToolResult } from './tool-context.ts';
import { loggedToolName } from '../call-log-writer.ts';

/** Outcome of {@link callTool}: a result, or an error text for the agent (an MCP tool error). */
export type CallOutcome = { ok: true; result: ToolResult } | {
  ok: false;
  code: string;
  message: string;
  cause?: unknown;
};

/**
 * Calls the handler of tool `name` after the schema check, then hands the call to `ctx.callLog`
 * (written after the answer, bounded). Unknown tools and bad arguments are tool errors.
 *
 * Source: spec/semantic-query-service.md § Tools, § Events
 */
export async function callTool(ctx: ToolContext, name: string, args: unknown): Promise<CallOutcome> {
  const started = ctx.deps.clock.now();
  const outcome = await runTool(ctx, name, args ?? {});
  const finished = ctx.deps.clock.now();
  const modelName = typeof (args as { modelName?: unknown })?.modelName === 'string'
    ? (args as { modelName: string }).modelName
    : undefined;
  ctx.callLog.record({
    projectId: ctx.project._id,
    tokenId: ctx.token._id,
    tool: name,
    status: outcome.ok ? 'success' : 'error',
    at: started,
    plane: ctx.plane.plane,
    input: args ?? {},
    output: outcome.ok
      ? { text: outcome.result.text, ...(outcome.result.structured ? { structured: outcome.result.structured } : {}) }
      : { error: outcome.message, code: outcome.code },
    durationMs: finished.getTime() - started.getTime(),
    ...(modelName ? { modelName } : {}),
  });
  return outcome;
}

async function runTool(ctx: ToolContext, name: string, args: unknown): Promise<CallOutcome> {
  const definition = toolDefinitions.find((t) => t.name === name);
  if (!definition) {
    // The name is echoed as the call log keeps it (a marked 64-character excerpt): any caller can send any name.
    const tools = toolDefinitions.map((t) => t.name).join(', ');
    return { ok: false, code: 'unknown_tool', message: `Unknown tool "${loggedToolName(name)}". Tools: ${tools}.` };
  }
  const problems = [...Value.Errors(definition.inputSchema, args)];
  if (problems.length > 0) {
    const lines = problems.slice(0, 5).map((p) => `${p.path || '(arguments)'}: ${p.message}`);
    return {
      ok: false,
      code: 'invalid_arguments',
      message: `Invalid arguments for ${name}: ${lines.join('; ')}. See the tool's input schema.`,
    };
  }
  try {
    return { ok: true, result: await dispatch(ctx, definition.name, args) };
  } catch (error) {
    if (isPlatformError(error)) return { ok: false, code: error.code, message: error.message };
    const reference = ctx.deps.ids.newId();
    return {
      ok: false,
      code: 'internal',
      message: `The tool failed unexpectedly; the operator can find reference ${reference} in the service log.`,
      cause: { reference, error },
    };
  }
}

/** Arguments of each tool, as its input schema (already checked) describes them. */
interface ToolArguments {
  get_semantic_model: Static<typeof GetSemanticModelInput>;
  get_datasets: Static<typeof GetDatasetsInput>;
  execute_query: Static<typeof ExecuteQueryInput>;
  execute_stored_query: Static<typeof ExecuteStoredQueryInput>;
  request_improvement: Static<typeof RequestImprovementInput>;
}

/** `args` as tool `name`'s arguments: only called after `Value.Errors` found no problem. */
function checked<K extends keyof ToolArguments>(_name: K, args: unknown): ToolArguments[K] {
  return args as ToolArguments[K];
}

function dispatch(ctx: ToolContext, name: ToolName, args: unknown): ToolResult | Promise<ToolResult> {
  switch (name) {
    case 'list_semantic_models':
      return listSemanticModels(ctx);
    case 'get_semantic_model':
      return getSemanticModel(ctx, checked(name, args));
    case 'get_datasets':
      return getDatasets(ctx, checked(name, args));
    case 'execute_query':
      return executeQuery(ctx, checked(name, args));
    case 'execute_stored_query':
      return executeStoredQuery(ctx, checked(name, args));
    case 'request_improvement':
      return requestImprovement(ctx, checked(name, args));
    default:
      throw new PlatformError('unknown_tool', `Unknown tool "${String(name)}".`);
  }
}
