/**
 * The broker's guard over one worker's turn (the store host's trusted side): before a report of the worker is
 * recorded, it loads what the records say (the workflow of the session's build, the session, the turn, the
 * children named) and applies the rules of ./broker-rules.ts and ./broker-call-rules.ts. The first report that
 * breaks a rule ends the run: the root turn and its running children end failed with `workflow_violation` naming
 * the rule, nothing of the report is written, every later operation of the worker is refused with the same error,
 * and `onViolation` is told (the dispatcher stops the worker and logs a line).
 *
 * Source: docs/decisions.md D17 § 4 (the broker enforces the workflow; the worker is not trusted);
 * spec/platform-service.md
 * § Rules 6, § Operational log lines ([worker] refused …).
 */
import type { ModelToolCall } from '../ports/model-provider.ts';
import {
  type AskedToolCall,
  type ChildFields,
  childOpening,
  childResume,
  type ResumeInput,
  toolCallViolation,
} from './broker-call-rules.ts';
import { outcomeViolation } from './broker-outcome-rules.ts';
import { type BrokerViolation, BrokerViolationError, checkpointViolation, type RecordedChild } from './broker-rules.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { loadTurnRecords, sessionsOf, type SessionStoreDeps } from './session-store.ts';
import { controlTools } from './state-prompt.ts';
import { failTurnTree } from './stale-turns.ts';
import type { ChildRequest, ModelCallRequest, SessionPatch, TurnOutcome } from './turn-host.ts';
import type { TurnTrace } from './turn-trace.ts';
import type { WorkflowView } from './workflow-view.ts';

/** What the guard needs. */
export interface BrokerGuardDeps extends SessionStoreDeps {
  /** The workflow `slug` of published build `buildId`. @throws PlatformError `not_found` */
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  /** Told of the first refused report (after the turn tree ended failed): the dispatcher stops the worker. */
  onViolation?(error: BrokerViolationError): void;
  /** The run's recorder: the refusal is a step and span event, written with the failed settle (D25). */
  trace?: Pick<TurnTrace, 'refusal' | 'timeline' | 'settled'>;
}

/** The guard's operations, one per checked report (each throws BrokerViolationError for a refused one). */
export interface BrokerGuard {
  /** @throws the violation that ended this run, once there was one */
  ensureOpen(): void;
  /** Notes a model call the broker made for `turnId`, and whether it failed (an `on_error` route may follow). */
  noteModelCall(turnId: string, failed: boolean): void;
  /** Notes a model reply of `turnId`: a reply to a call offering tools may carry the next advance. */
  noteReply(turnId: string, request: Pick<ModelCallRequest, 'tools'>, toolCalls: ModelToolCall[]): void;
  /** Checks a checkpoint before it is applied. @throws BrokerViolationError */
  checkpoint(turn: TurnRecord, session: SessionRecord, patch: SessionPatch): Promise<void>;
  /** Checks a service tool call. @throws BrokerViolationError */
  toolCall(session: SessionRecord, call: AskedToolCall): Promise<void>;
  /** The fields of the child a workflow call opens, from the records. @throws BrokerViolationError */
  child(parent: SessionRecord, request: ChildRequest): Promise<ChildFields>;
  /** The input a parked child is resumed with (the parent turn's own). @throws BrokerViolationError */
  resume(turn: TurnRecord, parent: SessionRecord, childId: unknown, requested: unknown): Promise<Resumed>;
  /** Checks how a turn ends against its recorded session. @throws BrokerViolationError */
  outcome(session: SessionRecord, outcome: TurnOutcome): Promise<void>;
}

/** A child to resume and the input it is resumed with. */
interface Resumed {
  child: SessionRecord;
  input: ResumeInput;
}

/** What one run's guard remembers. */
interface GuardState {
  deps: BrokerGuardDeps;
  rootTurnId: string;
  /** `to` of the platform_advance calls of each turn's latest model reply that offered tools, until one is taken. */
  advances: Map<string, string[]>;
  /** Per turn: the model calls the broker made for it, and whether one of them failed. */
  calls: Map<string, { made: number; failed: boolean }>;
  /** The violation that ended the run, once there was one. */
  refused?: BrokerViolationError;
}

const childIdOf = (pending: unknown): string | undefined => {
  const id = (pending as { childSessionId?: unknown } | null | undefined)?.childSessionId;
  return typeof id === 'string' ? id : undefined;
};

const callsOf = (state: GuardState, turnId: string) => state.calls.get(turnId) ?? { made: 0, failed: false };

const workflowOf = (state: GuardState, session: SessionRecord) =>
  state.deps.workflowOf(session.buildId, session.workflow);

/** Whether an `on_error` route of `session`'s active state may follow what the broker saw in `turn`. */
function failureSeen(state: GuardState, turn: TurnRecord, session: SessionRecord, workflow: WorkflowView): boolean {
  const seen = callsOf(state, turn._id);
  const active = workflow.states[session.state];
  const started = (turn.startedAt ?? turn.queuedAt).getTime();
  const budget = active?.budget.modelCalls;
  return seen.failed || seen.made >= workflow.limits.modelCallsPerTurn ||
    state.deps.clock.now().getTime() - started >= workflow.limits.turnSeconds * 1000 ||
    (budget !== undefined && session.visit.modelCalls >= budget) ||
    (active !== undefined && active.before.length + active.after.length > 0);
}

/**
 * Ends the run on its first refused report: the root turn's tree fails with the violation, the trace and
 * `onViolation` are told. @throws the violation (the first one again on every later call)
 */
async function refuse(state: GuardState, operation: string, found: BrokerViolation): Promise<never> {
  const { deps, rootTurnId } = state;
  if (state.refused) throw state.refused;
  const refused = new BrokerViolationError(operation, found);
  state.refused = refused;
  deps.trace?.refusal(rootTurnId, found.rule);
  const root = await loadTurnRecords(deps, rootTurnId).catch(() => undefined);
  const timeline = deps.trace?.timeline(rootTurnId);
  const failure = { code: refused.code, message: refused.message };
  if (root && await failTurnTree(deps, { ...root.turn, timeline }, failure)) {
    deps.trace?.settled(rootTurnId, 'failed', refused.code);
  }
  deps.onViolation?.(refused);
  throw refused;
}

/** This session's children among `ids` (strings only: an id never becomes a query operator). */
async function childrenNamed(state: GuardState, session: SessionRecord, ids: (string | undefined)[]) {
  const wanted = [...new Set(ids.filter((id): id is string => id !== undefined))];
  if (wanted.length === 0) return {};
  const found = await sessionsOf(state.deps).find({ parentId: session._id, _id: { $in: wanted } });
  const children: Record<string, RecordedChild> = {};
  for (const child of found) children[child._id] = { status: child.status, pending: child.pending };
  return children;
}

/** Notes a model reply of `turnId`: a reply to a call offering tools may carry the next advance. */
function noteReply(
  state: GuardState,
  turnId: string,
  request: Pick<ModelCallRequest, 'tools'>,
  toolCalls: ModelToolCall[],
): void {
  if (request.tools.length === 0) return;
  const targets = toolCalls.filter((call) => call.name === controlTools.advance)
    .map((call) => (call.input as { to?: unknown } | null)?.to);
  state.advances.set(turnId, targets.filter((to): to is string => typeof to === 'string'));
}

/** Checks a checkpoint before it is applied. @throws BrokerViolationError */
async function checkCheckpoint(
  state: GuardState,
  turn: TurnRecord,
  session: SessionRecord,
  patch: SessionPatch,
): Promise<void> {
  const children = await childrenNamed(state, session, [childIdOf(session.pending), childIdOf(patch?.pending)]);
  const workflow = await workflowOf(state, session);
  const taken = state.advances.get(turn._id) ?? [];
  const failed = patch.trail?.via === 'error' && failureSeen(state, turn, session, workflow);
  const facts = { workflow, session, turn, advances: taken, children, failureSeen: failed };
  const found = checkpointViolation(facts, patch);
  if (found) await refuse(state, 'checkpoint', found);
  if (patch.trail?.via === 'advance') state.advances.delete(turn._id);
}

/** The input a parked child is resumed with (the parent turn's own). @throws BrokerViolationError */
async function checkResume(
  state: GuardState,
  { turn, parent }: { turn: TurnRecord; parent: SessionRecord },
  childId: unknown,
  requested: unknown,
): Promise<Resumed> {
  const named = typeof childId === 'string' ? childId : undefined;
  const child = named === undefined ? null : await sessionsOf(state.deps).findOne({ _id: named, parentId: parent._id });
  const input = childResume({ session: parent, turn }, child, requested);
  return 'rule' in input ? refuse(state, 'child resume', input) : { child: child!, input };
}

/** The guard of the run of root turn `rootTurnId`; see the module comment. */
export function createBrokerGuard(deps: BrokerGuardDeps, rootTurnId: string): BrokerGuard {
  const state: GuardState = { deps, rootTurnId, advances: new Map(), calls: new Map() };
  return {
    ensureOpen(): void {
      if (state.refused) throw state.refused;
    },
    noteModelCall(turnId, failed): void {
      const seen = callsOf(state, turnId);
      state.calls.set(turnId, { made: seen.made + 1, failed: seen.failed || failed });
    },
    noteReply: (turnId, request, toolCalls) => noteReply(state, turnId, request, toolCalls),
    checkpoint: (turn, session, patch) => checkCheckpoint(state, turn, session, patch),
    async toolCall(session, call): Promise<void> {
      const found = toolCallViolation(await workflowOf(state, session), session, call);
      if (found) await refuse(state, 'tool call', found);
    },
    async child(parent, request): Promise<ChildFields> {
      const used = (await sessionsOf(deps).find({ parentId: parent._id })).map((c) => c.dispatchId ?? '');
      const opened = childOpening(await workflowOf(state, parent), parent, request, used);
      return 'rule' in opened ? refuse(state, 'workflow call', opened) : opened;
    },
    resume: (turn, parent, childId, requested) => checkResume(state, { turn, parent }, childId, requested),
    async outcome(session, outcome): Promise<void> {
      const found = outcomeViolation({ workflow: await workflowOf(state, session), session }, outcome);
      if (found) await refuse(state, 'end of turn', found);
    },
  };
}
