/**
 * Builds the turn engine's view of a published workflow (core/session's WorkflowView) from a build read by
 * core/agent, applying docs/agent-format.md's defaults; builds are immutable, so views are cached per build.
 *
 * Source: docs/agent-format.md § workflow.yaml, § Sub-workflows; docs/decisions.md D7 § Agents and environments.
 */
import { type DecisionField, durationMs } from '../agent/decision-terms.ts';
import { type PublishedAgent, type PublishedWorkflow, readBuildById, readPublishedAgent } from '../agent/hosting.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { DecisionFieldSpec } from './model.ts';
import { DEFAULT_RUBRIC_THRESHOLD } from './rubric-judge.ts';
import {
  type CallableWorkflow,
  defaultWorkflowLimits,
  type HookView,
  type StateView,
  type ToolRule,
  type WorkflowView,
} from './workflow-view.ts';

type Entry = string | { tool: string; arguments: Record<string, unknown> };
const rules = (entries: Entry[] | undefined): ToolRule[] =>
  (entries ?? []).map((e) => (typeof e === 'string' ? { tool: e } : { tool: e.tool, arguments: e.arguments }));

function hooksOf(
  list: { script?: string; rubric?: string; threshold?: number; model?: string }[] | undefined,
  sources: Record<string, string>,
): HookView[] {
  return (list ?? []).map((h) => ({
    name: h.script ?? 'rubric',
    source: h.script ? sources[h.script] : undefined,
    rubric: h.rubric,
    threshold: h.threshold ?? DEFAULT_RUBRIC_THRESHOLD,
    model: h.model,
  }));
}

function callableOf(workflow: PublishedWorkflow): CallableWorkflow | undefined {
  const trigger = workflow.triggers.find((t) => t.type === 'manual') ?? workflow.triggers.find((t) => t.type === 'mcp');
  if (!trigger) return undefined;
  const requires = (trigger.fields.requires as { name: string; type: string; description?: string }[] | undefined) ??
    [];
  const returns = ((trigger.fields.returns as { name: string }[] | undefined) ?? []).map((r) => r.name);
  const description = (trigger.fields.description as string | undefined) ?? workflow.definition.title ?? workflow.slug;
  return { slug: workflow.slug, description, parameters: requires, returns, entry: trigger.state, trigger: trigger.id };
}

/** A human state's `expires` and `fields` as the engine reads them (docs/decisions.md D26 § 2). */
function decisionTermsOf(state: { expires?: { after: string; to: string }; fields?: DecisionField[] }) {
  const afterMs = state.expires ? durationMs(String(state.expires.after)) : undefined;
  return {
    ...(state.expires && afterMs !== undefined ? { expires: { afterMs, to: state.expires.to } } : {}),
    ...(state.fields && state.fields.length > 0
      ? {
        fields: state.fields.map((f) => ({
          name: f.name,
          type: (f.type ?? 'string') as DecisionFieldSpec['type'],
          ...(f.description === undefined ? {} : { description: f.description }),
          required: f.required ?? true,
        })),
      }
      : {}),
  };
}

/** A state of a workflow definition as written (docs/agent-format.md § workflow.yaml). */
interface StateDefinition {
  title?: string;
  instructions?: string;
  type?: 'agent' | 'human';
  transitions?: { to: string; description: string }[];
  tools?: { allow?: Entry[]; forbid?: Entry[] };
  requires?: string[];
  budget?: { model_calls?: number; call_seconds?: number; parks?: number };
  on_error?: string;
  model?: string;
  before?: never[];
  after?: never[];
  expires?: { after: string; to: string };
  fields?: DecisionField[];
}

/** The engine's view of state `name` of `published`, its defaults applied. */
function stateViewOf(published: PublishedWorkflow, name: string, state: StateDefinition): StateView {
  return {
    slug: name,
    title: state.title,
    instructions: state.instructions,
    type: state.type ?? 'agent',
    transitions: state.transitions ?? [],
    tools: { allow: rules(state.tools?.allow), forbid: rules(state.tools?.forbid) },
    requires: state.requires ?? [],
    budget: {
      modelCalls: state.budget?.model_calls,
      callSeconds: state.budget?.call_seconds,
      parks: state.budget?.parks,
    },
    onError: state.on_error,
    model: state.model,
    before: hooksOf(state.before, published.hooks),
    after: hooksOf(state.after, published.hooks),
    triggers: published.triggers.filter((t) => t.state === name).map((t) => t.id),
    ...decisionTermsOf(state),
  };
}

/** A workflow's `settings.limits` with their defaults. */
function limitsOf(definition: PublishedWorkflow['definition']): WorkflowView['limits'] {
  const limits = definition.settings?.limits ?? {};
  return {
    childDepth: limits.child_depth ?? defaultWorkflowLimits.childDepth,
    childConcurrency: limits.child_concurrency ?? defaultWorkflowLimits.childConcurrency,
    turnSeconds: limits.turn_seconds ?? defaultWorkflowLimits.turnSeconds,
    modelCallsPerTurn: limits.model_calls_per_turn ?? defaultWorkflowLimits.modelCallsPerTurn,
    ...(limits.output_tokens_per_call === undefined ? {} : { outputTokensPerCall: limits.output_tokens_per_call }),
  };
}

/** The other workflows of the build that workflow `slug` may call, by slug. */
function callablesOf(agent: PublishedAgent, slug: string): Record<string, CallableWorkflow> {
  return Object.fromEntries(
    Object.values(agent.workflows).filter((w) => w.slug !== slug).map(callableOf).filter((c): c is CallableWorkflow =>
      c !== undefined
    ).map((c) => [c.slug, c]),
  );
}

/** The view of workflow `slug` of a read build. @throws PlatformError `workflow_not_found` (404) */
export function workflowView(agent: PublishedAgent, slug: string): WorkflowView {
  const published = agent.workflows[slug];
  if (!published) {
    throw new PlatformError(
      'workflow_not_found',
      `The published build has no workflow "${slug}"; use one of: ${
        Object.keys(agent.workflows).join(', ') || '(none)'
      }.`,
      { status: 404 },
    );
  }
  const d = published.definition;
  const states: Record<string, StateView> = {};
  for (const [name, s] of Object.entries(d.states) as [string, Record<string, never>][]) {
    states[name] = stateViewOf(published, name, s as unknown as StateDefinition);
  }
  const forbiddenSkills = new Set(d.skills?.forbid_always ?? []);
  return {
    slug,
    title: d.title,
    agentPrompt: agent.agentPrompt,
    instructions: d.instructions,
    prose: published.prose,
    disabled: d.disabled ?? false,
    model: d.settings?.model,
    promptCache: d.settings?.prompt_cache ?? true,
    limits: limitsOf(d),
    tools: { allowAlways: rules(d.tools?.allow_always), forbidAlways: rules(d.tools?.forbid_always) },
    skills: (d.skills?.allow_always ?? []).filter((s) => !forbiddenSkills.has(s) && agent.skills[s]).map((s) => ({
      name: s,
      ...agent.skills[s],
    })),
    states,
    callable: callablesOf(agent, slug),
  };
}

/** Reads builds by id through the stores, caching the most recent `capacity` (builds never change). */
export function publishedWorkflows(
  deps: { docs: DocumentStore; objects: ObjectStore },
  capacity = 32,
): {
  agentOf(buildId: string): Promise<PublishedAgent>;
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
} {
  const cache = new Map<string, Promise<PublishedAgent>>();
  const agentOf = (buildId: string): Promise<PublishedAgent> => {
    const hit = cache.get(buildId);
    if (hit) return hit;
    const loading = (async () => readPublishedAgent(await readBuildById(deps, buildId)))();
    loading.catch(() => cache.delete(buildId));
    cache.set(buildId, loading);
    if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
    return loading;
  };
  return { agentOf, workflowOf: async (buildId, slug) => workflowView(await agentOf(buildId), slug) };
}
