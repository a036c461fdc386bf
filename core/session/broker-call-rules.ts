/**
 * The broker's rules for what a worker asks the platform to do on a turn's behalf: call a service tool, open a
 * child session (a workflow call), resume a parked child, and what a hook may ask for. Pure functions over the
 * records the broker holds; the worker's own account of its rules, ancestry or inherited forbids is never used.
 *
 * Source: docs/decisions.md D17 § 4; docs/agent-format.md § workflow.yaml (tools: deny beats allow and binds child
 * sessions; entries may guard arguments), § Sub-workflows; spec/platform-service.md § Session facts named.
 */
import type { BrokerViolation } from './broker-rules.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { dispatchIdOf, ruleToolName, toolCallRefusal, type ToolRules } from './rules.ts';
import type { ChildRequest, TurnContext } from './turn-host.ts';
import type { StateView, ToolRule, WorkflowView } from './workflow-view.ts';

const violation = (rule: BrokerViolation['rule'], message: string): BrokerViolation => ({ rule, message });
const isRecord = (value: unknown): value is Record<string, unknown> => (
  value !== null && typeof value === 'object' && !Array.isArray(value)
);
const withoutStop = (text: string): string => text.replace(/\.$/, '');

/** A session as the call rules read it. */
export type CallingSession = Pick<SessionRecord, 'state' | 'inheritedForbid'>;

/**
 * The rules in force in the recorded active state: the workflow's `allow_always`/`forbid_always`, the state's
 * `allow`/`forbid`, and the forbids inherited from the parent sessions (as recorded when the child was opened).
 */
export function recordedRules(workflow: WorkflowView, state: StateView, session: CallingSession): ToolRules {
  return {
    allow: [...workflow.tools.allowAlways, ...state.tools.allow],
    forbid: [...workflow.tools.forbidAlways, ...state.tools.forbid, ...(session.inheritedForbid ?? [])],
  };
}

function activeAgentState(workflow: WorkflowView, session: CallingSession): StateView | BrokerViolation {
  const state = workflow.states[session.state];
  if (!state) {
    const named = String(session.state).slice(0, 80);
    return violation('state_exists', `the active state "${named}" is not in workflow "${workflow.slug}"`);
  }
  if (state.type === 'agent') return state;
  return violation('tool_rules', `state "${state.slug}" is a human state: it calls no tool`);
}

/** A service tool call as a worker asks for it (any JSON). */
export interface AskedToolCall {
  collection: unknown;
  name: unknown;
  input: unknown;
}

/**
 * Why the service tool call may not be made in the session's active state, or undefined when it may: the state's
 * and the workflow's allow and forbid rules with their argument guards, and the inherited forbids.
 * Source: docs/decisions.md D17 § 4 (callTool applies the allow/forbid rules and argument guards).
 */
export function toolCallViolation(
  workflow: WorkflowView,
  session: CallingSession,
  call: AskedToolCall,
): BrokerViolation | undefined {
  const plain = (value: unknown): value is string => typeof value === 'string' && /^[^/\s]{1,128}$/.test(value);
  if (!plain(call?.collection) || !plain(call?.name)) {
    return violation('tool_rules', 'a tool call names a collection and a tool (text without "/")');
  }
  const state = activeAgentState(workflow, session);
  if ('rule' in state) return state;
  const name = ruleToolName(call.collection, call.name);
  const refusal = toolCallRefusal(recordedRules(workflow, state, session), name, call.input);
  if (refusal === undefined) return undefined;
  return violation('tool_rules', `${withoutStop(refusal)} (state "${state.slug}")`);
}

/** A parent session as the workflow-call rules read it. */
export type ParentSession = CallingSession & Pick<SessionRecord, 'workflow' | 'depth' | 'ancestry' | 'dispatchId'>;

/** The fields of a child session the broker computes from the records (never from the worker's message). */
export interface ChildFields {
  workflow: string;
  dispatchId: string;
  arguments: Record<string, unknown>;
  /** The parent workflow's `forbid_always` and the parent's own inherited forbids. */
  inheritedForbid: ToolRule[];
  /** The parent's ancestry plus the parent's workflow (root first). */
  ancestry: string[];
}

/** True when `dispatchId` is `dispatchIdOf(parent's id, n)` for some n ≥ 1 and no child of the parent has it yet. */
function freshDispatchId(parent: ParentSession, dispatchId: unknown, used: readonly string[]): dispatchId is string {
  if (typeof dispatchId !== 'string' || used.includes(dispatchId)) return false;
  const count = dispatchId.split('~').at(-1) ?? '';
  return /^[1-9][0-9]{0,5}$/.test(count) && dispatchIdOf(parent.dispatchId, Number(count)) === dispatchId;
}

/**
 * The child session a workflow call opens, or the rule the call breaks: the callee is callable from the parent's
 * workflow and allowed in its active state, is not on the chain (a cycle), stays within `child_depth`, takes a
 * fresh dispatch id of this parent, and passes no `trigger` argument. Inherited forbids and ancestry come from
 * the parent's records. `usedDispatchIds` are those of the parent's existing children.
 * Source: docs/decisions.md D17 § 4 (a child's inherited forbids and ancestry are computed by the broker).
 */
export function childOpening(
  workflow: WorkflowView,
  parent: ParentSession,
  request: ChildRequest,
  usedDispatchIds: readonly string[],
): ChildFields | BrokerViolation {
  const slug: unknown = request?.workflow;
  const callable = typeof slug === 'string' && Object.hasOwn(workflow.callable, slug);
  const target = callable ? workflow.callable[slug as string] : undefined;
  if (!target) {
    const named = String(slug).slice(0, 80);
    return violation('workflow_call', `workflow "${named}" cannot be called from "${workflow.slug}"`);
  }
  const state = activeAgentState(workflow, parent);
  if ('rule' in state) return state;
  const args: unknown = request.arguments;
  if (!isRecord(args)) return violation('workflow_call', 'a workflow call passes its arguments as an object');
  if (Object.hasOwn(args, 'trigger')) {
    return violation('locked_variable', '"trigger" is set by the platform, never passed as an argument');
  }
  const refusal = toolCallRefusal(recordedRules(workflow, state, parent), `platform_workflow_${target.slug}`, args);
  if (refusal !== undefined) return violation('tool_rules', `${withoutStop(refusal)} (state "${state.slug}")`);
  const ancestry = [...(parent.ancestry ?? []), parent.workflow];
  if (ancestry.includes(target.slug)) {
    const chain = [...ancestry, target.slug].join(' → ');
    return violation('workflow_call', `calling "${target.slug}" would be a cycle (${chain})`);
  }
  const depth = workflow.limits.childDepth;
  if (parent.depth + 1 > depth) return violation('workflow_call', `workflow calls nest at most ${depth} deep`);
  if (!freshDispatchId(parent, request.dispatchId, usedDispatchIds)) {
    return violation('workflow_call', 'a workflow call takes the next dispatch id of its parent, once');
  }
  return {
    workflow: target.slug,
    dispatchId: request.dispatchId,
    arguments: args,
    ancestry,
    inheritedForbid: [...workflow.tools.forbidAlways, ...(parent.inheritedForbid ?? [])],
  };
}

/** A resumed child's turn: its kind and input (the parent turn's own). */
export type ResumeInput = TurnContext['input'] & { kind: TurnRecord['kind'] };

function sameInput(own: ResumeInput, requested: unknown): boolean {
  const asked = isRecord(requested) ? requested : {};
  const decision = isRecord(asked.decision) ? asked.decision : undefined;
  if (asked.kind !== own.kind || asked.message !== own.message) return false;
  if (own.decision === undefined) return decision === undefined;
  const { to, by, comment, channel, fields, expired } = own.decision;
  return decision !== undefined && decision.to === to && decision.by === by && decision.comment === comment &&
    decision.channel === channel && decision.expired === expired &&
    JSON.stringify(decision.fields) === JSON.stringify(fields);
}

/**
 * The input a parked child is resumed with (the parent turn's own kind and input), or the rule the resume breaks:
 * the child is a child of this parent, the parent is parked on it, it is parked itself (a decision turn resumes a
 * child awaiting a decision, any other one a child awaiting input), and the worker asks with the parent's input.
 * Source: docs/decisions.md D17 § 4 (resumeChild only resumes a parked child of this parent with the parent's own
 * decision).
 */
export function childResume(
  parent: { session: Pick<SessionRecord, '_id' | 'pending'>; turn: Pick<TurnRecord, 'kind' | 'input'> },
  child: Pick<SessionRecord, '_id' | 'parentId' | 'status'> | null,
  requested: unknown,
): ResumeInput | BrokerViolation {
  if (!child || child.parentId !== parent.session._id || parent.session.pending?.childSessionId !== child._id) {
    return violation('resume_parked_child', 'the session resumed is not the child this session is parked on');
  }
  const { kind, input } = parent.turn;
  const awaited = kind === 'decision' ? 'awaiting_decision' : 'awaiting_input';
  if (child.status !== awaited) {
    const why = `the child session is ${child.status}, not ${awaited}: this turn cannot resume it`;
    return violation('resume_parked_child', why);
  }
  const own: ResumeInput = {
    kind,
    ...(input.message === undefined ? {} : { message: input.message }),
    ...(input.decision ? { decision: { ...input.decision } } : {}),
  };
  if (sameInput(own, requested)) return own;
  return violation('resume_parked_child', "a child is resumed only with its parent turn's own decision or message");
}

/**
 * What a hook may ask the platform for: nothing. A hook script gets a broker with no operations (its input is all
 * it reads); every request is refused with this.
 * Source: docs/decisions.md D17 § 4 (hooks get a broker with no operations, not the turn's).
 */
export function hookOperationViolation(op: unknown): BrokerViolation {
  const named = typeof op === 'string' && /^[A-Za-z.]{1,40}$/.test(op) ? `"${op}"` : 'an operation';
  const why = `a hook reaches no platform operation (it asked for ${named}); it reads its input and returns its value`;
  return violation('hook_no_operations', why);
}
