/**
 * The workflow rules the broker (the trusted side of a turn worker's channel) applies to what a worker reports:
 * pure functions over the records the broker holds, each answering the rule a report breaks, or undefined. The
 * worker runs the engine, but it is not trusted: a checkpoint, a turn's end, a tool call, a workflow call and a
 * resumed child are checked here before anything is recorded. Tool calls, workflow calls, resumed children and
 * hooks: ./broker-call-rules.ts; how a turn ends: ./broker-outcome-rules.ts.
 *
 * Source: docs/decisions.md D17 § 4 (the broker enforces the workflow; the worker is not trusted); docs/agent-format.md
 * § workflow.yaml (states, transitions, requires, on_error, control tools); spec/platform-service.md § Rules 6.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { finalStatuses, type SessionRecord, type TurnRecord } from './model.ts';
import type { SessionPatch } from './turn-host.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';

/**
 * The rules, by name (the name is in every refusal and in the `[worker] refused …` log line):
 * - `checkpoint_shape`: a checkpoint's fields have the engine's shapes (variables an object, messages a list, …);
 * - `state_exists`: a state change names a state of the session's workflow;
 * - `state_change_source`: a state change comes with its trail entry, taken through `platform_advance`, an
 *   `on_error` route or a decision (never `start`);
 * - `out_edge`: an advance follows an out-edge of the active agent state;
 * - `advance_called`: an advance was asked for by the model's latest reply in this turn (`platform_advance`);
 * - `requires_set`: an advance leaves a state only with its `requires` variables set;
 * - `on_error_route`: an error route goes to the active state's `on_error`, and only after a failure the broker saw
 *   in this turn ({@link CheckpointFacts} `failureSeen`);
 * - `decision_from_decide`: a decision (or expiry) trail entry comes only from the decision this turn carries
 *   (`decide`, or the park sweep's expiry), with its `by`, `channel` and fields (as the only variables set);
 * - `locked_variable`: locked variables and `trigger` never change;
 * - `park_matches_state`: a pending decision is a human state's (its out-edges) or mirrors a parked child's;
 * - `finished_child`: a park on a child session is cleared only once that child finished;
 * - `visit_counters`: a visit's model calls and parks never go back (they reset only on entering a state);
 * - `thread_roles`: the thread holds user, assistant and tool messages only (no system message);
 * - `reachable_outcome`: a turn ends only as the engine can end it (./broker-outcome-rules.ts);
 * - `tool_rules`, `workflow_call`, `resume_parked_child`, `hook_no_operations`: see ./broker-call-rules.ts.
 */
export type BrokerRule =
  | 'checkpoint_shape'
  | 'state_exists'
  | 'state_change_source'
  | 'out_edge'
  | 'advance_called'
  | 'requires_set'
  | 'on_error_route'
  | 'decision_from_decide'
  | 'locked_variable'
  | 'park_matches_state'
  | 'finished_child'
  | 'visit_counters'
  | 'thread_roles'
  | 'reachable_outcome'
  | 'tool_rules'
  | 'workflow_call'
  | 'resume_parked_child'
  | 'hook_no_operations';

/** A report the broker refuses: the rule it breaks and what was wrong (names of states and tools, never a value). */
export interface BrokerViolation {
  rule: BrokerRule;
  message: string;
}

/**
 * The error of a refused report: code `workflow_violation` (403), naming the operation and the rule.
 * Source: docs/decisions.md D17 § 4 (the turn fails with a clear error naming the rule).
 */
export class BrokerViolationError extends PlatformError {
  readonly rule: BrokerRule;
  constructor(operation: string, violation: BrokerViolation) {
    super(
      'workflow_violation',
      `The platform refused the worker's ${operation}: ${violation.message} ` +
        `(rule ${violation.rule}); the turn ends failed and nothing of it was recorded.`,
      { status: 403 },
    );
    this.rule = violation.rule;
  }
}

/** A session as the checkpoint rules read it. */
export type RecordedSession = Pick<SessionRecord, 'state' | 'variables' | 'lockedVariables' | 'pending' | 'visit'>;
/** A child session named by a park, as the rules read it. */
export type RecordedChild = Pick<SessionRecord, 'status' | 'pending'>;

/** What the broker knows when a worker checkpoints a turn's session. */
export interface CheckpointFacts {
  workflow: WorkflowView;
  session: RecordedSession;
  turn: Pick<TurnRecord, 'kind' | 'input'>;
  /** `to` of each platform_advance call of the model's latest reply offering tools in this turn, not yet taken. */
  advances: readonly string[];
  /** This session's child sessions named by its pending park or the patch's, by id. */
  children: Readonly<Record<string, RecordedChild>>;
  /**
   * Whether the broker saw, in this turn, a failure an `on_error` route may follow: a model call that failed (a
   * provider's error, a spend cap), the turn's model-call or wall-time limit reached by the calls it made, the
   * state's model-call budget reached on its records, or a state with hooks (a script hook runs in the worker's own
   * sandbox, where the broker cannot see it fail). Absent: none.
   */
  failureSeen?: boolean;
}

type Found = BrokerViolation | undefined;
const violation = (rule: BrokerRule, message: string): BrokerViolation => ({ rule, message });
const quoted = (value: unknown): string =>
  JSON.stringify(
    typeof value === 'string' ? value.slice(0, 80) : typeof value,
  );
const edgesOf = (state: StateView): string[] => state.transitions.map((t) => t.to);
const sameList = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));
const blank = (value: unknown): boolean => value === undefined || value === null || value === '';
const isObject = (value: unknown): boolean => value !== null && typeof value === 'object' && !Array.isArray(value);
const count = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;

/** The variable names a worker may never write: the session's locked variables and `trigger`. */
export function lockedNames(session: Pick<SessionRecord, 'lockedVariables'>): Set<string> {
  return new Set([...session.lockedVariables, 'trigger']);
}

function shapeViolation(patch: SessionPatch): Found {
  const shaped = isObject(patch) &&
    (patch.variables === undefined || isObject(patch.variables)) &&
    (patch.messages === undefined || (Array.isArray(patch.messages) && patch.messages.every(isObject))) &&
    (patch.trail === undefined || isObject(patch.trail)) &&
    (patch.pending === undefined || patch.pending === null || isObject(patch.pending)) &&
    (patch.visit === undefined || (isObject(patch.visit) && count(patch.visit.modelCalls) && count(patch.visit.parks) &&
      typeof patch.visit.entered === 'boolean')) &&
    (patch.dispatchCount === undefined || count(patch.dispatchCount));
  if (shaped) return undefined;
  return violation('checkpoint_shape', 'a checkpoint has the fields the engine writes, with their types');
}

/**
 * Why a checkpoint `patch` may not be applied to the recorded session, or undefined when it may.
 * Source: docs/decisions.md D17 § 4 (a state change is an out-edge taken through platform_advance, on_error or a
 * decision;
 * locked variables and `trigger` never change; decision trail entries come only from decide).
 */
export function checkpointViolation(facts: CheckpointFacts, patch: SessionPatch): Found {
  const shape = shapeViolation(patch);
  if (shape) return shape;
  const { session } = facts;
  const system = (patch.messages ?? []).find((m) => !['user', 'assistant', 'tool'].includes(m.role));
  if (system) return violation('thread_roles', `a ${quoted(system.role)} message cannot be written to the thread`);
  const locked = lockedNames(session);
  const touched = Object.keys(patch.variables ?? {}).filter((name) => locked.has(name));
  if (touched.length > 0) {
    const verb = touched.length > 1 ? 'are' : 'is';
    return violation('locked_variable', `${touched.map(quoted).join(', ')} ${verb} locked`);
  }
  const found = stateChangeViolation(facts, patch) ?? parkViolation(facts, patch);
  if (found) return found;
  const was = session.visit;
  const visit = patch.visit;
  if (
    visit && patch.state === undefined &&
    (visit.modelCalls < was.modelCalls || visit.parks < was.parks || (was.entered && !visit.entered))
  ) {
    return violation('visit_counters', `the visit of state ${quoted(session.state)} is reset only by entering a state`);
  }
  return undefined;
}

function stateChangeViolation(facts: CheckpointFacts, patch: SessionPatch): Found {
  const { workflow, session } = facts;
  const trail = patch.trail;
  if (patch.state === undefined && trail === undefined) return undefined;
  if (patch.state === undefined || trail === undefined || trail.state !== patch.state) {
    return violation('state_change_source', 'a state change and its trail entry come together and name the same state');
  }
  const to = patch.state;
  if (typeof to !== 'string' || !Object.hasOwn(workflow.states, to)) {
    return violation('state_exists', `state ${quoted(to)} is not a state of workflow "${workflow.slug}"`);
  }
  const active = workflow.states[session.state];
  if (!active) {
    return violation('state_exists', `the active state ${quoted(session.state)} is not in workflow "${workflow.slug}"`);
  }
  if (trail.via !== 'decision' && trail.via !== 'expired' && (trail.by !== undefined || trail.channel !== undefined)) {
    return violation('decision_from_decide', 'only a decision names who decided and through which channel');
  }
  switch (trail.via) {
    case 'advance':
      return advanceViolation(facts, active, to, patch);
    case 'decision':
    case 'expired':
      return decisionViolation(facts, active, to, { trail, variables: patch.variables });
    case 'error': {
      if (active.onError !== to) {
        const routes = active.onError ? `to "${active.onError}"` : 'nowhere';
        return violation('on_error_route', `state "${active.slug}" routes its errors ${routes}, not to "${to}"`);
      }
      if (facts.failureSeen === true) return undefined;
      const why = `state "${active.slug}" routed to its on_error, but no model call failed, no limit or budget was ` +
        'reached and no hook could fail in this turn';
      return violation('on_error_route', why);
    }
    default:
      return violation(
        'state_change_source',
        `a worker cannot write a ${quoted(trail.via)} trail entry; ` +
          'states change by advance, on_error or decision',
      );
  }
}

function advanceViolation(facts: CheckpointFacts, active: StateView, to: string, patch: SessionPatch): Found {
  if (active.type !== 'agent' || !edgesOf(active).includes(to)) {
    const human = active.type === 'human' ? ' (a human state moves by decision only)' : '';
    return violation('out_edge', `"${to}" is not an out-edge of state "${active.slug}"${human}`);
  }
  if (!facts.advances.includes(to)) {
    const why = `the model's latest reply in this turn did not call platform_advance to "${to}"`;
    return violation('advance_called', why);
  }
  const variables = { ...facts.session.variables, ...patch.variables };
  const missing = active.requires.filter((name) => blank(variables[name]));
  if (missing.length === 0) return undefined;
  return violation('requires_set', `state "${active.slug}" is left only with ${missing.join(', ')} set`);
}

type Trail = NonNullable<SessionPatch['trail']>;

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

/**
 * A decision's (or an expiry's) state change: written only by a turn carrying that decision, with its trail entry
 * (`to`, who, comment, channel) and its fields as the only variables set; a decision follows an out-edge, an expiry
 * goes to the state's `expires.to` (docs/decisions.md D26 § 2).
 */
function decisionViolation(
  facts: CheckpointFacts,
  active: StateView,
  to: string,
  { trail, variables }: { trail: Trail; variables: SessionPatch['variables'] },
): Found {
  const decision = facts.turn.kind === 'decision' ? facts.turn.input.decision : undefined;
  const pending = facts.session.pending;
  if (!decision || pending?.kind !== 'decision' || pending.childSessionId !== undefined) {
    const why = 'a decision trail entry is written only by a turn carrying a decision taken with decide';
    return violation('decision_from_decide', why);
  }
  const expired = decision.expired === true;
  if (
    decision.to !== to || trail.by !== decision.by || (trail.note ?? undefined) !== (decision.comment ?? undefined) ||
    (trail.channel ?? undefined) !== (decision.channel ?? undefined) || expired !== (trail.via === 'expired') ||
    !sameJson(variables, decision.fields)
  ) {
    return violation('decision_from_decide', 'the decision trail entry differs from the decision taken with decide');
  }
  if (expired) {
    if (active.expires?.to === to) return undefined;
    return violation('out_edge', `"${to}" is not where state "${active.slug}" goes when its decision expires`);
  }
  if (edgesOf(active).includes(to)) return undefined;
  return violation('out_edge', `"${to}" is not an out-edge of state "${active.slug}"`);
}

const parkedStatuses: readonly string[] = ['awaiting_decision', 'awaiting_input'];

function parkViolation(facts: CheckpointFacts, patch: SessionPatch): Found {
  if (patch.pending === undefined) return undefined;
  const recorded = facts.session.pending?.childSessionId as string | undefined;
  const next = patch.pending;
  if (recorded !== undefined && (next === null || next.childSessionId !== recorded)) {
    const child = facts.children[recorded];
    if (!child || !finalStatuses.includes(child.status)) {
      return violation('finished_child', 'the park on a child session is cleared only once that child finished');
    }
  }
  if (next === null) return undefined;
  const options: unknown = next.kind === 'decision' ? next.options : [];
  const named = Array.isArray(options) ? options.map((o: { to?: unknown } | null) => String(o?.to)) : undefined;
  if (next.childSessionId !== undefined) {
    const child = facts.children[next.childSessionId];
    const childPending = child?.pending;
    const mirrors = child !== undefined && parkedStatuses.includes(child.status) && childPending?.kind === next.kind &&
      (childPending.kind !== 'decision' ||
        (named !== undefined && sameList(named, childPending.options.map((o) => o.to))));
    if (mirrors) return undefined;
    return violation('park_matches_state', 'a park on a child mirrors a parked child session of this session');
  }
  if (next.kind !== 'decision') {
    const kind: unknown = next.kind;
    if (kind === 'input') return undefined;
    return violation('park_matches_state', `a session parks for a decision or for input, not ${quoted(kind)}`);
  }
  const state = facts.workflow.states[patch.state ?? facts.session.state];
  if (!state || state.type !== 'human' || next.state !== state.slug || !named || !sameList(named, edgesOf(state))) {
    const why = 'a pending decision is that of the active human state, with its out-edges as the options';
    return violation('park_matches_state', why);
  }
  return undefined;
}
