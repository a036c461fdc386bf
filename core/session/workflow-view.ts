/**
 * What the turn engine knows of a published workflow: a plain view built from a validated build by the
 * process (core/session/build-workflows.ts reads core/agent's files), so this domain needs no YAML and no
 * other domain. Defaults of docs/agent-format.md's settings are applied when the view is built.
 *
 * Source: docs/agent-format.md § workflow.yaml, § Sub-workflows; docs/decisions.md D7 § Sessions and turns.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { DecisionFieldSpec } from './model.ts';

/** A tool rule: a tool name (`semantic`, `semantic/execute_query`, `semantic/get_*`, `platform_workflow_<slug>`) with
 * optional argument guards. */
export interface ToolRule {
  tool: string;
  /** The rule applies only when each named argument equals its value. */
  arguments?: Record<string, unknown>;
}

/** A hook of a state, ready to run: the script's source (read from the build) or a rubric. */
export interface HookView {
  /** `hooks/<name>.js` as written. */
  name: string;
  source?: string;
  rubric?: string;
  threshold: number;
  model?: string;
}

/** One state. */
export interface StateView {
  slug: string;
  title?: string;
  instructions?: string;
  type: 'agent' | 'human';
  transitions: { to: string; description: string }[];
  tools: { allow: ToolRule[]; forbid: ToolRule[] };
  requires: string[];
  budget: { modelCalls?: number; callSeconds?: number; parks?: number };
  onError?: string;
  model?: string;
  before: HookView[];
  after: HookView[];
  /** Trigger ids declared on this state (it is their entry). */
  triggers: string[];
  /** A human state's expiry: after `afterMs` undecided, the session goes to `to` (docs/decisions.md D26 § 2). */
  expires?: { afterMs: number; to: string };
  /** The fields a human state's decision carries (docs/decisions.md D26 § 2). */
  fields?: DecisionFieldSpec[];
}

/** A workflow another may call as `platform_workflow_<slug>`: its parameters (its manual/mcp trigger's `requires`) and
 * entry. */
export interface CallableWorkflow {
  slug: string;
  description: string;
  parameters: { name: string; type: string; description?: string }[];
  /** Variable names passed up with the child's message (its mcp trigger's `returns`). */
  returns: string[];
  entry: string;
  /** The trigger id of the entry (`manual` or `mcp` kind). */
  trigger: string;
}

/** Limits of a workflow's settings, defaults applied. Source: docs/agent-format.md § workflow.yaml (settings). */
export interface WorkflowLimits {
  /** Child session depth below a root (default 3). */
  childDepth: number;
  /** Workflow calls run at once by one model message (default 4). */
  childConcurrency: number;
  /** Wall time of one turn in seconds (default 600). */
  turnSeconds: number;
  /** Model calls per turn (default 50). */
  modelCallsPerTurn: number;
  /**
   * Output tokens one model call may produce (`limits.output_tokens_per_call`); absent: the platform's default
   * of 4096 (core/session/call-estimate.ts DEFAULT_OUTPUT_TOKENS_PER_CALL). Sent with every call and reserved.
   */
  outputTokensPerCall?: number;
}

/** A workflow of a published build, as the engine runs it. */
export interface WorkflowView {
  slug: string;
  title?: string;
  /** AGENTS.md body (the system prompt of every workflow). */
  agentPrompt: string;
  instructions?: string;
  /** WORKFLOW.md, HTML comments stripped. */
  prose?: string;
  disabled: boolean;
  model?: string;
  promptCache: boolean;
  limits: WorkflowLimits;
  tools: { allowAlways: ToolRule[]; forbidAlways: ToolRule[] };
  states: Record<string, StateView>;
  /** Skills the workflow allows (`skills.allow_always` less `forbid_always`): put in the system prompt. */
  skills: { name: string; description: string; body: string }[];
  /** Other workflows of the build this one may call (only those its tool rules allow are offered). */
  callable: Record<string, CallableWorkflow>;
}

/** Default limits. Source: docs/agent-format.md § workflow.yaml (settings.limits) as documented in
 * docs/agent-format.md. */
export const defaultWorkflowLimits: WorkflowLimits = {
  childDepth: 3,
  childConcurrency: 4,
  turnSeconds: 600,
  modelCallsPerTurn: 50,
};

/**
 * The entry state of a session: the state declaring `trigger`, or without one the state declaring a `manual`
 * trigger, else the first state declaring any trigger.
 * @throws PlatformError `trigger_not_found` (404) when `trigger` is given and no state declares it
 */
export function entryStateOf(workflow: WorkflowView, trigger?: string): { state: string; trigger: string } {
  const states = Object.values(workflow.states);
  if (trigger !== undefined) {
    const found = states.find((s) => s.triggers.includes(trigger));
    if (!found) {
      throw new PlatformError(
        'trigger_not_found',
        `Workflow "${workflow.slug}" declares no trigger "${trigger}"; use one of: ${
          states.flatMap((s) => s.triggers).join(', ') || '(none)'
        }.`,
        { status: 404 },
      );
    }
    return { state: found.slug, trigger };
  }
  const manual = states.find((s) => s.triggers.includes('manual'));
  if (manual) return { state: manual.slug, trigger: 'manual' };
  const first = states.find((s) => s.triggers.length > 0) ?? states[0];
  return { state: first.slug, trigger: first.triggers[0] ?? 'manual' };
}

/** The state `slug` of `workflow`. @throws PlatformError `state_not_found` (500: the build and the session disagree) */
export function stateOf(workflow: WorkflowView, slug: string): StateView {
  const state = workflow.states[slug];
  if (!state) {
    throw new PlatformError('state_not_found', `State "${slug}" is not in workflow "${workflow.slug}" of this build.`, {
      status: 500,
    });
  }
  return state;
}
