/**
 * The tools an MCP endpoint of an incoming connection serves: one per workflow of the environment's current
 * published build whose `mcp` trigger names the connection, named after the workflow's slug, described by the
 * trigger's `description`, its input schema built from `requires` (each listed argument required unless it says
 * `required: false`; no others).
 * A trigger declaring a `file` entry in `requires` or `returns` (or a type the platform does not know) is a
 * deployment error: its tool is left out of the list and the reason is reported. Arguments of a call are checked
 * against the schema with ajv before anything starts.
 *
 * Source: spec/platform-service.md § Tool-protocol endpoint, § Trigger declarations (mcp), § Errors (mcp call
 * with a non-conforming argument; mcp trigger declaring a file entry); docs/decisions.md D8 § Endpoints (MCP).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { PublishedAgent } from '../agent/hosting.ts';

/** The platform's own tool on every MCP endpoint (./mcp-decisions.ts); a workflow of this slug is not served. */
const reservedToolName = 'decide';

/** JSON Schema types an mcp trigger's entries may declare (`file` is refused: calls accept no files). */
const schemaTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** One argument of an mcp trigger (`requires`; type default string, required unless `required: false`) or one result
 * (`returns`). */
interface Entry {
  name: string;
  type: string;
  description?: string;
  required?: boolean;
}

/** A served tool: its MCP definition and where a call of it opens its session. */
export interface McpTool {
  /** The workflow's slug. */
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the arguments: an object of the `requires` entries (required unless `required:
   * false`). */
  inputSchema: {
    type: 'object';
    properties: Record<string, { type: string; description?: string }>;
    required: string[];
    additionalProperties: false;
  };
  /** The mcp trigger (its id and the state declaring it). */
  trigger: { id: string; state: string };
  /** Variables named by the trigger's `returns`, carried in a successful result. */
  returns: string[];
  /** `trace: true`: results add the session's steps and tool calls. */
  trace: boolean;
}

/** A workflow whose mcp trigger names the connection but is not served, and why (a deployment error). */
export interface UnlistedTool {
  workflow: string;
  trigger: string;
  message: string;
}

const entriesOf = (value: unknown): Entry[] =>
  (Array.isArray(value) ? value : [])
    .filter((e): e is Entry => typeof e?.name === 'string')
    .map((e) => ({ ...e, type: typeof e.type === 'string' ? e.type : 'string' }));

/** Why an mcp trigger cannot be served, or undefined when it can. */
function refusalOf(requires: Entry[], returns: Entry[]): string | undefined {
  const files = [...requires, ...returns].filter((e) => e.type === 'file').map((e) => e.name);
  if (files.length > 0) {
    return `declares the file entries ${
      files.join(', ')
    }; an MCP call accepts no files, so the tool is not listed. Change their type and publish again.`;
  }
  const unknown = [...requires, ...returns].filter((e) => !schemaTypes.has(e.type)).map((e) => `${e.name} (${e.type})`);
  if (unknown.length > 0) {
    return `declares entries of unknown type: ${
      unknown.join(', ')
    }; use string, number, integer, boolean, object or array.`;
  }
  return undefined;
}

/**
 * The tools a connection serves on a published build.
 * @param identifier - the connection's identifier (what a trigger's `connection` names)
 * @returns the served tools (sorted by name) and the mcp triggers left out with the deployment error's message
 */
export function mcpToolsOf(agent: PublishedAgent, identifier: string): { tools: McpTool[]; unlisted: UnlistedTool[] } {
  const tools: McpTool[] = [];
  const unlisted: UnlistedTool[] = [];
  for (const workflow of Object.values(agent.workflows)) {
    for (const trigger of workflow.triggers.filter((t) => t.type === 'mcp' && t.fields.connection === identifier)) {
      const requires = entriesOf(trigger.fields.requires);
      const returns = entriesOf(trigger.fields.returns);
      const refusal = workflow.slug === reservedToolName
        ? 'has the name of the platform tool "decide"; rename the workflow to serve it.'
        : refusalOf(requires, returns);
      if (refusal) {
        unlisted.push({
          workflow: workflow.slug,
          trigger: trigger.id,
          message: `The mcp trigger "${trigger.id}" of workflow "${workflow.slug}" ${refusal}`,
        });
        continue;
      }
      const properties = Object.fromEntries(
        requires.map((e) => [e.name, { type: e.type, ...(e.description ? { description: e.description } : {}) }]),
      );
      tools.push({
        name: workflow.slug,
        description: (trigger.fields.description as string | undefined) ?? workflow.definition.title ?? workflow.slug,
        inputSchema: {
          type: 'object',
          properties,
          required: requires.filter((e) => e.required !== false).map((e) => e.name),
          additionalProperties: false,
        },
        trigger: { id: trigger.id, state: trigger.state },
        returns: returns.map((e) => e.name),
        trace: trigger.fields.trace === true,
      });
    }
  }
  return { tools: tools.sort((a, b) => a.name.localeCompare(b.name)), unlisted };
}

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validators = new WeakMap<McpTool['inputSchema'], ValidateFunction>();

/** What is wrong with one ajv error, naming the argument. */
function describeError(error: ErrorObject): string {
  if (error.keyword === 'required') return `Argument "${String(error.params.missingProperty)}" is missing.`;
  if (error.keyword === 'additionalProperties') {
    return `Argument "${String(error.params.additionalProperty)}" is not one this tool takes.`;
  }
  const name = error.instancePath.split('/').filter(Boolean).join('.') || '(arguments)';
  return `Argument "${name}" ${error.message ?? 'does not conform'}.`;
}

/**
 * Checks a call's arguments against the tool's input schema.
 * @returns undefined when they conform, else a message naming the argument and what is wrong (for a tool error),
 *   followed by the arguments the tool takes
 */
export function argumentProblem(tool: McpTool, args: Record<string, unknown>): string | undefined {
  let validate = validators.get(tool.inputSchema);
  if (!validate) validators.set(tool.inputSchema, validate = ajv.compile(tool.inputSchema));
  if (validate(args)) return undefined;
  const takes = Object.entries(tool.inputSchema.properties).map(([name, p]) => `${name} (${p.type})`).join(', ') ||
    'none';
  return `${describeError(validate.errors![0])} Tool "${tool.name}" takes: ${takes}; no session was opened.`;
}
