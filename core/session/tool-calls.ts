/**
 * Answers the tool calls of one model message: the control tools (advance at most once per message, wait, raise,
 * set and get variables), service tools through the host, and workflow calls (child sessions). Tool failures go
 * back to the model as error results; only hook errors, spent budgets and timeouts fail a turn.
 *
 * Source: docs/agent-format.md § workflow.yaml (control tools; tool failures), § Sub-workflows.
 */
import type { ModelToolCall, ModelToolResult } from '../ports/model-provider.ts';
import { runAfterHooks } from './hooks.ts';
import { attributeKeyRegExp as variableNameRegExp, ruleToolName, toolCallRefusal } from './rules.ts';
import { controlTools, type OfferedTool, rulesOf } from './state-prompt.ts';
import type { MessageEffects } from './message-effects.ts';
import type { TurnRun } from './turn-state.ts';
import type { StateView } from './workflow-view.ts';
import { callWorkflows, type WorkflowCall } from './workflow-calls.ts';

export type { MessageEffects } from './message-effects.ts';

const record = (
  value: unknown,
): Record<
  string,
  unknown
> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {});
const fail = (call: ModelToolCall, output: string): ModelToolResult => ({
  callId: call.id,
  name: call.name,
  output,
  isError: true,
});
const ok = (call: ModelToolCall, output: unknown): ModelToolResult => ({ callId: call.id, name: call.name, output });

/** Answers every call of one message, in order (workflow calls run together, up to the child concurrency). */
export async function answerToolCalls(
  run: TurnRun,
  state: StateView,
  calls: ModelToolCall[],
  offered: OfferedTool[],
): Promise<MessageEffects> {
  const effects: MessageEffects = { results: [], variables: {} };
  const workflowCalls: WorkflowCall[] = [];
  const byName = new Map(offered.map((tool) => [tool.definition.name, tool]));
  for (const call of calls) {
    const tool = byName.get(call.name);
    if (!tool) {
      effects.results.push(fail(call, `No tool "${call.name}" is offered in this step.`));
      continue;
    }
    if (tool.kind === 'control') {
      effects.results.push(await answerControl(run, state, call, effects));
      continue;
    }
    if (tool.kind === 'workflow') {
      workflowCalls.push({ call, target: tool.target });
      continue;
    }
    const refusal = toolCallRefusal(
      rulesOf(run.workflow, state, run.session),
      ruleToolName(tool.collection, tool.name),
      call.input,
    );
    if (refusal) {
      effects.results.push(fail(call, refusal));
      continue;
    }
    const result = await run.host.callTool(run.turnId, {
      collection: tool.collection,
      name: tool.name,
      input: call.input,
    });
    effects.results.push({ callId: call.id, name: call.name, output: result.output, isError: result.isError });
  }
  if (workflowCalls.length > 0) await callWorkflows(run, state, workflowCalls, effects);
  return effects;
}

async function answerControl(
  run: TurnRun,
  state: StateView,
  call: ModelToolCall,
  effects: MessageEffects,
): Promise<ModelToolResult> {
  const input = record(call.input);
  switch (call.name) {
    case controlTools.advance:
      return advance(run, state, call, effects);
    case controlTools.wait:
      return wait(run, state, call, effects);
    case controlTools.raise:
      effects.raise = {
        code: typeof input.code === 'string' && input.code ? input.code : 'raised',
        reason: typeof input.reason === 'string' ? input.reason : 'no reason given',
      };
      return ok(call, 'The session ends failed.');
    case controlTools.setVariables:
      return setVariables(run, call, record(input.variables), effects);
    default: {
      const names = Array.isArray(input.names)
        ? input.names.filter((n): n is string => typeof n === 'string')
        : undefined;
      const all = { ...run.session.variables, ...effects.variables };
      return ok(call, names ? Object.fromEntries(names.filter((n) => n in all).map((n) => [n, all[n]])) : all);
    }
  }
}

/**
 * Waits per state visit when the state's `budget.parks` is not set. Every park awaiting input counts (a wait, or
 * a reply that ends a turn); a wait past it is refused as a tool error and the model carries on.
 *
 * Source: docs/agent-format.md § workflow.yaml (budget); docs/decisions.md D17 § 6 (give `parks` a default)
 */
export const DEFAULT_PARKS = 50;

/**
 * `platform_wait({reason, until?})`: parks awaiting input, resuming by itself at `until`. A `until` that is not an
 * ISO time, or is not in the future (by the turn's clock), is refused as a tool error: a wait already over would
 * resume at every park sweep. Waits beyond the state's `budget.parks` (default {@link DEFAULT_PARKS}) are refused.
 *
 * Source: docs/agent-format.md § workflow.yaml (control tools, budget); docs/decisions.md D17 § 6
 */
function wait(
  run: TurnRun,
  state: StateView,
  call: ModelToolCall,
  effects: MessageEffects,
): ModelToolResult {
  const input = record(call.input);
  if (typeof input.reason !== 'string') return fail(call, 'platform_wait needs a reason (text).');
  const parks = state.budget.parks ?? DEFAULT_PARKS;
  if (run.session.visit.parks >= parks) {
    return fail(call, `This step may wait at most ${parks} times; carry on without waiting.`);
  }
  let until: string | undefined;
  if (input.until !== undefined && input.until !== null) {
    const at = typeof input.until === 'string' ? Date.parse(input.until) : Number.NaN;
    if (Number.isNaN(at)) {
      const given = JSON.stringify(input.until).slice(0, 60);
      return fail(
        call,
        `platform_wait's until must be an ISO time such as 2026-01-31T09:00:00Z; ${given} is not. ` +
          'Leave it out to wait for the reply.',
      );
    }
    if (at <= run.deps.now()) {
      const past = new Date(at).toISOString();
      return fail(
        call,
        `platform_wait's until (${past}) is already past; give a future time, or leave it out to wait for the reply.`,
      );
    }
    until = new Date(at).toISOString();
  }
  effects.wait = { reason: input.reason, until };
  return ok(call, 'Waiting for the reply.');
}

async function advance(
  run: TurnRun,
  state: StateView,
  call: ModelToolCall,
  effects: MessageEffects,
): Promise<ModelToolResult> {
  const input = record(call.input);
  if (effects.advanceTo) {
    return fail(call, 'platform_advance may be called once per message; this message already moved on.');
  }
  const edge = state.transitions.find((t) => t.to === input.to);
  if (!edge) {
    return fail(
      call,
      `You cannot move to ${JSON.stringify(input.to)} from here; use one of: ${
        state.transitions.map((t) => t.to).join(', ')
      }.`,
    );
  }
  const variables = { ...run.session.variables, ...effects.variables };
  const missing = state.requires.filter((name) =>
    variables[name] === undefined || variables[name] === null || variables[name] === ''
  );
  if (missing.length > 0) {
    return fail(call, `Set ${missing.join(', ')} with platform_set_variables before leaving this step.`);
  }
  const gate = await runAfterHooks(run, state, variables);
  if (gate !== undefined) return fail(call, gate);
  effects.advanceTo = { to: edge.to, reason: typeof input.reason === 'string' ? input.reason : '' };
  return ok(call, `Moved to ${edge.to}.`);
}

function setVariables(
  run: TurnRun,
  call: ModelToolCall,
  values: Record<string, unknown>,
  effects: MessageEffects,
): ModelToolResult {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (!variableNameRegExp.test(name) || name === 'trigger') {
      problems.push(
        `${name}: not a variable name you may set (lowercase letter first, then lowercase letters, digits, _ or -; ` +
          `"trigger" is reserved)`,
      );
    } else if (run.session.lockedVariables.includes(name)) problems.push(`${name}: locked (set by the firing)`);
    else effects.variables[name] = value;
  }
  if (Object.keys(values).length === 0) {
    return fail(call, 'platform_set_variables needs `variables`: an object of name → value.');
  }
  return problems.length > 0
    ? fail(call, `Not set: ${problems.join('; ')}.`)
    : ok(call, `Set ${Object.keys(values).join(', ')}.`);
}
