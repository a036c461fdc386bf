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
import type { SessionRecord, TurnRecord } from './model.ts';
import { readThread, sessionsOf } from './session-store.ts';
import { applyCheckpointTo } from './session-checkpoint.ts';
import { settleTurn } from './turn-settle.ts';
import { stopForMessage } from './turn-interrupt.ts';
import { meteredModelCall } from './metered-call.ts';
import { evaluationCallReach } from './evaluation-reach.ts';
import { trustedPromptCache } from './call-choice.ts';
import { stampDecisionTerms } from './decision-terms.ts';
import type {
  ModelCallReply,
  ModelCallRequest,
  SessionPatch,
  SessionView,
  TurnContext,
  TurnHost,
  TurnOutcome,
} from './turn-host.ts';
import { changed, type HostContext, hostContext, recordsOf, type StoreHostDeps } from './store-host-context.ts';
import { openChild, resumeChild } from './store-host-children.ts';

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
  const ctx = hostContext(deps, rootTurnId);
  return {
    loadTurn: (turnId) => loadTurn(ctx, turnId),
    callModel: (turnId, request) => callModel(ctx, turnId, request),
    async callTool(turnId, call) {
      const { session } = await recordsOf(ctx, turnId);
      await ctx.guard.toolCall(session, call);
      const answer = () => answerTool(deps, session, call);
      // Inside its execute_tool span: the service call's own span (the MCP client's) is its child.
      return deps.trace ? deps.trace.toolCall(turnId, call, answer) : answer();
    },
    async checkpoint(turnId, patch) {
      const { turn, session } = await recordsOf(ctx, turnId);
      await ctx.guard.checkpoint(turn, session, patch);
      // Applied to the records just read for this request (its write is fenced on the lease and message count).
      await applyCheckpointTo(deps, { turn, session }, await withDecisionTerms(deps, session, patch), deps.fence);
      changed(ctx, session);
    },
    openChild: (turnId, request) => openChild(ctx, turnId, request),
    resumeChild: (turnId, childSessionId, input) => resumeChild(ctx, turnId, childSessionId, input),
    endTurn: (turnId, outcome) => endTurn(ctx, turnId, outcome),
  };
}

/** What the worker needs to run turn `turnId`: its input, the session as the engine sees it, thread, tools. */
async function loadTurn(ctx: HostContext, turnId: string): Promise<TurnContext> {
  const { deps } = ctx;
  const { turn, session } = await recordsOf(ctx, turnId);
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
}

/**
 * One model call of turn `turnId`, metered; a message queued with an interrupt stops the root turn here instead.
 * @throws the interrupt's error after settling the turn interrupted; what the call throws
 */
async function callModel(ctx: HostContext, turnId: string, request: ModelCallRequest): Promise<ModelCallReply> {
  const { deps, guard } = ctx;
  const { turn, session } = await recordsOf(ctx, turnId);
  // A message queued with an interrupt stops the root turn here, its safe point (docs/decisions.md D27 § 1).
  if (session.interrupt && turnId === ctx.rootTurnId) {
    const timeline = deps.trace?.timeline(turnId);
    const error = await stopForMessage(deps, { turn, session, fence: deps.fence, timeline, before: ctx.before });
    deps.trace?.settled(turnId, 'awaiting_input');
    changed(ctx, session);
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
}

/** Ends turn `turnId` as the worker reports, once the guard checked the outcome against the records. */
async function endTurn(ctx: HostContext, turnId: string, outcome: TurnOutcome): Promise<void> {
  const { deps } = ctx;
  const { turn, session } = await recordsOf(ctx, turnId);
  await ctx.guard.outcome(session, outcome);
  // Only what the outcome rules read is recorded: the status and the error's code and message.
  const error = outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {};
  const owned = deps.fence ? { lease: deps.fence.lease } : {};
  // What the run timed of the turn goes with the settle's writes (docs/decisions.md D25).
  const timeline = deps.trace?.timeline(turnId);
  const settled = await settleTurn(deps, turn as TurnRecord, { status: outcome.status, ...error, timeline }, owned);
  if (settled) deps.trace?.settled(turnId, outcome.status, outcome.error?.code);
  changed(ctx, session);
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
