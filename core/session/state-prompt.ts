/**
 * What the model is given in one state: the system prompt (the agent's prompt, the workflow's standing direction
 * and prose, the active state's instructions and only its out-edges) and the tools the state offers (the control
 * tools, the service tools and workflow calls its rules allow).
 *
 * Source: docs/agent-format.md § workflow.yaml (the model sees only the active state's out-edges; control
 * tools), § Sub-workflows.
 */
import type { ModelToolDefinition } from '../ports/model-provider.ts';
import { modelToolName, ruleToolName, toolOffered, type ToolRules } from './rules.ts';
import type { ServiceTool, SessionView } from './turn-host.ts';
import type { CallableWorkflow, StateView, WorkflowView } from './workflow-view.ts';

/** Names of the control tools. Source: docs/agent-format.md § workflow.yaml. */
export const controlTools = {
  advance: 'platform_advance',
  wait: 'platform_wait',
  raise: 'platform_raise',
  setVariables: 'platform_set_variables',
  getVariables: 'platform_get_variables',
} as const;

/** Prefix of a workflow called as a tool. Source: docs/agent-format.md § Sub-workflows. */
export const workflowToolPrefix = 'platform_workflow_';

/** The rules in force in `state`: the workflow's, the state's, and the parents' forbids. */
export function rulesOf(workflow: WorkflowView, state: StateView, session: SessionView): ToolRules {
  return {
    allow: [...workflow.tools.allowAlways, ...state.tools.allow],
    forbid: [...workflow.tools.forbidAlways, ...state.tools.forbid, ...session.inheritedForbid],
  };
}

/** A tool the model may call in a state, and what answers it. */
export type OfferedTool =
  | { kind: 'control'; definition: ModelToolDefinition }
  | { kind: 'service'; definition: ModelToolDefinition; collection: string; name: string }
  | { kind: 'workflow'; definition: ModelToolDefinition; target: CallableWorkflow };

function controlDefinitions(state: StateView): ModelToolDefinition[] {
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
  const tools: ModelToolDefinition[] = [];
  if (state.transitions.length > 0) {
    tools.push({
      name: controlTools.advance,
      description:
        "Move the conversation to the next state. Call it at most once per message, when this state's work is done.",
      inputSchema: object({
        to: { type: 'string', enum: state.transitions.map((t) => t.to) },
        reason: { type: 'string' },
      }, ['to', 'reason']),
    });
  }
  tools.push(
    {
      name: controlTools.wait,
      description: "Stop and wait for the person's reply (for example to ask a question). " +
        '`until` (a future ISO time) resumes by itself then.',
      inputSchema: object({ reason: { type: 'string' }, until: { type: 'string' } }, ['reason']),
    },
    {
      name: controlTools.raise,
      description: 'End the session as failed, with a code and a reason, when the work cannot be done.',
      inputSchema: object({ code: { type: 'string' }, reason: { type: 'string' } }, ['code', 'reason']),
    },
    {
      name: controlTools.setVariables,
      description: 'Set session variables (name → value).',
      inputSchema: object({ variables: { type: 'object' } }, ['variables']),
    },
    {
      name: controlTools.getVariables,
      description: 'Read session variables (all, or the names given).',
      inputSchema: object({ names: { type: 'array', items: { type: 'string' } } }, []),
    },
  );
  return tools;
}

const jsonType = (type: string) => (type === 'file' ? 'string' : type);

/**
 * Every tool the model may call in `state`, in a stable order (control tools, service tools, workflow calls).
 * Source: docs/agent-format.md § workflow.yaml (tools), § Sub-workflows (platform_workflow_<slug>).
 */
export function offeredTools(
  workflow: WorkflowView,
  state: StateView,
  session: SessionView,
  serviceTools: ServiceTool[],
): OfferedTool[] {
  const rules = rulesOf(workflow, state, session);
  const offered: OfferedTool[] = controlDefinitions(state).map((definition) => ({ kind: 'control', definition }));
  for (const tool of serviceTools) {
    if (!toolOffered(rules, ruleToolName(tool.collection, tool.name))) continue;
    offered.push({
      kind: 'service',
      collection: tool.collection,
      name: tool.name,
      definition: {
        name: tool.modelName ?? modelToolName(tool.collection, tool.name),
        description: tool.description,
        inputSchema: tool.inputSchema,
      },
    });
  }
  for (const target of Object.values(workflow.callable)) {
    const name = `${workflowToolPrefix}${target.slug}`.replace(/-/g, '_');
    if (!toolOffered(rules, `${workflowToolPrefix}${target.slug}`)) continue;
    const properties = Object.fromEntries(
      target.parameters.map((p) => [p.name, { type: jsonType(p.type), description: p.description ?? '' }]),
    );
    offered.push({
      kind: 'workflow',
      target,
      definition: {
        name,
        description: target.description,
        inputSchema: {
          type: 'object',
          properties,
          required: target.parameters.map((p) => p.name),
          additionalProperties: false,
        },
      },
    });
  }
  return offered;
}

/**
 * The system prompt of one model call in `state`. Only the state's out-edges are named, never the whole graph.
 * Source: docs/agent-format.md § workflow.yaml (instructions sent only while active; the description is all the model
 * knows about an edge).
 */
export function systemPrompt(workflow: WorkflowView, state: StateView): string {
  const parts = [workflow.agentPrompt.trim()];
  if (workflow.instructions) parts.push(`# Task\n${workflow.instructions.trim()}`);
  if (workflow.prose) parts.push(workflow.prose.trim());
  for (const skill of workflow.skills) parts.push(`# Skill: ${skill.name}\n${skill.description}\n\n${skill.body}`);
  parts.push(
    `# Current step: ${state.title ?? state.slug}${state.instructions ? `\n${state.instructions.trim()}` : ''}`,
  );
  if (state.transitions.length > 0) {
    parts.push(
      `# Next steps\nWhen this step is done, call ${controlTools.advance} with one of:\n${
        state.transitions.map((t) => `- ${t.to}: ${t.description}`).join('\n')
      }`,
    );
  }
  if (state.requires.length > 0) {
    parts.push(
      `Before leaving this step, set these variables with ${controlTools.setVariables}: ${state.requires.join(', ')}.`,
    );
  }
  return parts.filter((p) => p.length > 0).join('\n\n');
}
