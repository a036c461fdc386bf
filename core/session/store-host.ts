/**
 * The host of a running turn over the stores: what the broker side of a worker answers (and what runs a turn
 * in-process in tests). It is scoped to one root turn: only that turn and the child turns it opened may be named;
 * any other id is refused (`turn_not_allowed`). Model calls are made here, through the ModelProvider port, with
 * usage and cost recorded on the turn, the session and the spend totals, each call reserved against the spend caps
 * of its workflow and its ancestors before it runs (./metered-call.ts).
 *
 * Source: spec/platform-service.md § Rules 6 (a worker reaches platform data only through the process that
 * started it), § Session facts named; docs/decisions.md D7 § Models, § Dispatcher and workers.
 */
import type { ModelProvider, ModelUsage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import type { TextDelta } from '../ports/text-deltas.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import {
  applyCheckpoint,
  insertSession,
  insertTurn,
  loadTurnRecords,
  readThread,
  sessionsOf,
  type SessionStoreDeps,
  type TurnFence,
} from './session-store.ts';
import { settleTurn } from './turn-settle.ts';
import { restoreOf, stopForMessage } from './turn-interrupt.ts';
import type { SessionRestore } from './chat-queue-model.ts';
import { meteredModelCall } from './metered-call.ts';
import { childEvaluation, evaluationCallReach } from './evaluation-reach.ts';
import { trustedPromptCache } from './call-choice.ts';
import { createBrokerGuard } from './broker-guard.ts';
import type { BrokerViolationError } from './broker-rules.ts';
import { stampDecisionTerms } from './decision-terms.ts';
import type {
  ModelCallReply,
  ServiceTool,
  SessionPatch,
  SessionView,
  TurnContext,
  TurnHost,
  TurnOutcome,
} from './turn-host.ts';
import type { TurnTrace } from './turn-trace.ts';
import type { WorkflowView } from './workflow-view.ts';

/** What a store host needs besides the stores. */
export interface StoreHostDeps extends SessionStoreDeps {
  /** The workflow `slug` of published build `buildId`. @throws PlatformError `not_found` */
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  models: ModelProvider;
  /**
   * The model provider of an evaluation session's calls (its run may record them or replay a recording:
   * core/evaluation/cassette-store.ts); absent: {@link models}.
   */
  evaluationModels?(mark: { runId: string; caseId: string }): Promise<ModelProvider>;
  /** Cost in USD of a call's usage on `model` (the config's prices; 0 for a model without prices). */
  costOf(model: string | undefined, usage: ModelUsage): number;
  serviceTools(): Promise<ServiceTool[]>;
  callServiceTool(
    call: { collection: string; name: string; input: unknown },
    signal?: AbortSignal,
  ): Promise<{ output: unknown; isError: boolean }>;
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  /** Aborted when the turn is cancelled or its worker ends: aborts tool calls in flight. */
  signal?: AbortSignal;
  /** The signal of one model call: {@link signal} combined with a timeout of `timeoutMs` when given (a state's
   * call_seconds). */
  callSignal(timeoutMs?: number): AbortSignal | undefined;
  /** Called with each text delta of a model call (live chat streams); optional. */
  onText?(delta: TextDelta): void;
  /** Told of the first report the broker refused (the turn tree already ended failed): stop the worker. */
  onViolation?(error: BrokerViolationError): void;
  /** Told when a new message stopped the turn (it settled interrupted: ./turn-interrupt.ts): stop the worker. */
  onInterrupted?(): void;
  /** The turn queue: a chat handed to a queued message when its turn settles has that turn queued at once. */
  enqueueTurn?(turnId: string): Promise<void>;
  /**
   * The runner and lease epoch of the claim (core/session/turn-runner.ts): checkpoints and the settle write only while
   * the turn is still that runner's under that lease, and child turns are run under it. Absent (in-process tests),
   * writes check the turn's status only.
   */
  fence?: TurnFence;
  /** Told after each checkpoint, child opened or resumed and settle (readers read the chat again); optional. */
  changes?: SessionChanges;
  /**
   * The turn run's recorder (./turn-trace.ts): told of each turn read, child opened and settle, it times model and
   * tool calls and its steps are written with each settle (docs/decisions.md D25). Absent: nothing is timed.
   */
  trace?: TurnTrace;
}

/** The engine's view of a stored session. */
export function sessionView(session: SessionRecord): SessionView {
  return {
    id: session._id,
    workflow: session.workflow,
    status: session.status,
    state: session.state,
    variables: { ...session.variables },
    lockedVariables: session.lockedVariables,
    pending: session.pending as SessionView['pending'],
    visit: { ...session.visit },
    dispatchCount: session.dispatchCount,
    dispatchId: session.dispatchId,
    depth: session.depth,
    inheritedForbid: session.inheritedForbid,
    ancestry: session.ancestry ?? [],
  };
}

/**
 * A TurnHost for the root turn `rootTurnId` and the child turns it opens. Every report is checked against the
 * workflow's rules before it is recorded (./broker-guard.ts): the first one refused ends the turn failed.
 */
export function createStoreHost(deps: StoreHostDeps, rootTurnId: string): TurnHost {
  const allowed = new Set([rootTurnId]);
  const guard = createBrokerGuard(deps, rootTurnId);
  /** The root session as the host first read it, before the turn wrote anything: what a rollback restores. */
  let before: SessionRestore | undefined;
  const records = async (turnId: string) => {
    guard.ensureOpen();
    if (typeof turnId !== 'string' || !allowed.has(turnId)) {
      const named = String(turnId).slice(0, 80);
      throw new PlatformError('turn_not_allowed', `Turn ${named} is not this worker's.`, { status: 403 });
    }
    const loaded = await loadTurnRecords(deps, turnId);
    if (turnId === rootTurnId) before ??= restoreOf(loaded.session);
    deps.trace?.seen(loaded.turn, loaded.session);
    return loaded;
  };
  /** After a write succeeded: the chat's readers read again (docs/architecture.md § Life of a turn). */
  const changed = (session: SessionRecord) => deps.changes?.changed(session.rootId ?? session._id);

  return {
    async loadTurn(turnId): Promise<TurnContext> {
      const { turn, session } = await records(turnId);
      const workflow = await deps.workflowOf(session.buildId, session.workflow);
      const thread = await readThread(deps, session);
      return {
        turnId,
        kind: turn.kind,
        input: turn.input,
        session: sessionView(session),
        workflow,
        messages: thread.map((m) => m.message),
        serviceTools: await deps.serviceTools(),
        promptCache: trustedPromptCache(deps.promptCache, workflow),
      };
    },
    async callModel(turnId, request): Promise<ModelCallReply> {
      const { turn, session } = await records(turnId);
      // A message queued with an interrupt stops the root turn here, its safe point (docs/decisions.md D27 § 1).
      if (session.interrupt && turnId === rootTurnId) {
        const timeline = deps.trace?.timeline(turnId);
        const error = await stopForMessage(deps, { turn, session, fence: deps.fence, timeline, before });
        deps.trace?.settled(turnId, 'awaiting_input');
        changed(session);
        deps.onInterrupted?.();
        throw error;
      }
      // Its model and prompt cache taken from the records; reserved against the spend caps of the workflow and its
      // ancestors, settled after (./metered-call.ts).
      const models = session.evaluation && deps.evaluationModels
        ? await deps.evaluationModels(session.evaluation)
        : deps.models;
      const metered = models === deps.models ? deps : { ...deps, models };
      const reply = await meteredModelCall(metered, turn, session, request).catch((error: unknown) => {
        guard.noteModelCall(turnId, true);
        throw error;
      });
      guard.noteModelCall(turnId, false);
      guard.noteReply(turnId, request, reply.toolCalls);
      return reply;
    },
    async callTool(turnId, call) {
      const { session } = await records(turnId);
      await guard.toolCall(session, call);
      const answer = () => answerTool(deps, session, call);
      // Inside its execute_tool span: the service call's own span (the MCP client's) is its child.
      return deps.trace ? deps.trace.toolCall(turnId, call, answer) : answer();
    },
    async checkpoint(turnId, patch) {
      const { turn, session } = await records(turnId);
      await guard.checkpoint(turn, session, patch);
      await applyCheckpoint(deps, turn, await withDecisionTerms(deps, session, patch), deps.fence);
      changed(session);
    },
    async openChild(turnId, request) {
      const { session: parent } = await records(turnId);
      // The callee, its arguments, inherited forbids and ancestry come from the records, never from the worker.
      const fields = await guard.child(parent, request);
      const target = (await deps.workflowOf(parent.buildId, parent.workflow)).callable[fields.workflow];
      const child = await insertSession(deps, {
        orgId: parent.orgId,
        agentId: parent.agentId,
        environment: parent.environment,
        workflow: fields.workflow,
        buildId: parent.buildId,
        commitId: parent.commitId,
        state: target.entry,
        trigger: target.trigger,
        variables: { ...fields.arguments as Record<string, never> },
        lockedVariables: Object.keys(fields.arguments),
        depth: parent.depth + 1,
        inheritedForbid: fields.inheritedForbid,
        ancestry: fields.ancestry,
        parentId: parent._id,
        rootId: parent.rootId ?? parent._id,
        dispatchId: fields.dispatchId,
        // A child of an evaluation's session is the evaluation's too, of the same run, case and build.
        ...childEvaluation(parent),
        ...(deps.fence ? { lease: deps.fence.lease } : {}),
      });
      const message = JSON.stringify(fields.arguments);
      const turn = await insertTurn(deps, child, {
        kind: 'prompt',
        input: { message },
        status: 'running',
        fence: deps.fence,
      });
      allowed.add(turn._id);
      deps.trace?.childOpened(turnId, turn, child);
      changed(child);
      return { sessionId: child._id, turnId: turn._id };
    },
    async resumeChild(turnId, childSessionId, input) {
      const { turn: parentTurn, session: parent } = await records(turnId);
      // Only the child this session is parked on, still parked, with the parent turn's own input (not the worker's).
      const { child, input: own } = await guard.resume(parentTurn, parent, childSessionId, input);
      const leased = deps.fence ? { lease: deps.fence.lease } : {};
      const running = { $set: { status: 'running', updatedAt: deps.clock.now(), ...leased } };
      const { matched } = await sessionsOf(deps).updateOne({ _id: child._id, status: child.status }, running);
      if (matched === 0) {
        const why = `Child session ${child._id} is no longer parked; it was resumed meanwhile.`;
        throw new PlatformError('child_not_parked', why, { status: 409 });
      }
      const { kind, ...rest } = own;
      const turn = await insertTurn(deps, child, { kind, input: rest, status: 'running', fence: deps.fence });
      allowed.add(turn._id);
      deps.trace?.childOpened(turnId, turn, child);
      changed(child);
      return { turnId: turn._id };
    },
    async endTurn(turnId, outcome: TurnOutcome) {
      const { turn, session } = await records(turnId);
      await guard.outcome(session, outcome);
      // Only what the outcome rules read is recorded: the status and the error's code and message.
      const error = outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {};
      const owned = deps.fence ? { lease: deps.fence.lease } : {};
      // What the run timed of the turn goes with the settle's writes (docs/decisions.md D25).
      const timeline = deps.trace?.timeline(turnId);
      const settled = await settleTurn(deps, turn as TurnRecord, { status: outcome.status, ...error, timeline }, owned);
      if (settled) deps.trace?.settled(turnId, outcome.status, outcome.error?.code);
      changed(session);
    },
  };
}

/**
 * `patch` with a pending decision's expiry and fields taken from the records (./decision-terms.ts): the human
 * state's, or the parked child's; never the worker's. Source: docs/decisions.md D26 § 2.
 */
async function withDecisionTerms(deps: StoreHostDeps, session: SessionRecord, patch: SessionPatch) {
  const pending = patch.pending;
  if (!pending || pending.kind !== 'decision') return patch;
  const workflow = await deps.workflowOf(session.buildId, session.workflow);
  const child = pending.childSessionId === undefined
    ? undefined
    : await sessionsOf(deps).findOne({ _id: pending.childSessionId, parentId: session._id });
  const childPending = child?.pending?.kind === 'decision' ? child.pending : undefined;
  return { ...patch, pending: stampDecisionTerms(workflow, pending, deps.clock.now(), childPending) };
}

/**
 * Answers a service tool call of `session`: an evaluation's from its case's mocks or as ./evaluation-reach.ts lets
 * it reach a service, any other from the service.
 */
async function answerTool(
  deps: StoreHostDeps,
  session: SessionRecord,
  call: { collection: string; name: string; input: unknown },
): Promise<{ output: unknown; isError: boolean }> {
  if (session.evaluation) {
    const readOnly = async () =>
      (await deps.serviceTools()).some((t) =>
        t.collection === call.collection && t.name === call.name && t.readOnly === true
      );
    const tool = `${call.collection}/${call.name}`;
    const reach = await evaluationCallReach(session.evaluation.mocks, { tool, input: call.input, readOnly });
    if (reach.kind === 'refused') return { output: reach.message, isError: true };
    if (reach.kind === 'mock') {
      const { answer } = reach;
      return 'error' in answer ? { output: answer.error, isError: true } : { output: answer.result, isError: false };
    }
  }
  return deps.callServiceTool({ collection: call.collection, name: call.name, input: call.input }, deps.signal);
}
