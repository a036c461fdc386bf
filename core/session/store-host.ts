/**
 * The host of a running turn over the stores: what the broker side of a worker answers (and what runs a turn
 * in-process in tests). It is scoped to one root turn: only that turn and the child turns it opened may be named;
 * any other id is refused (`turn_not_allowed`). Model calls are made here, through the ModelProvider port, with
 * usage and cost recorded on the turn, the session and the spend totals, and refused once a spend cap is reached.
 *
 * Source: spec/platform-service.md § Rules 6 (a worker reaches platform data only through the process that
 * started it), § Session facts named; issue 7 § Models, § Dispatcher and workers.
 */
import type { ModelProvider, ModelToolCall, ModelUsage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { TextDelta } from '../ports/text-deltas.ts';
import { noUsage, type SessionRecord, type TurnRecord } from './model.ts';
import {
  applyCheckpoint, insertSession, insertTurn, loadTurnRecords, readThread, recordUsage, sessionsOf, settleTurn, type SessionStoreDeps,
} from './session-store.ts';
import { addSpend, checkSpendCaps } from './spend.ts';
import type { ModelCallReply, ServiceTool, SessionView, TurnContext, TurnHost, TurnOutcome } from './turn-host.ts';
import type { WorkflowView } from './workflow-view.ts';

/** What a store host needs besides the stores. */
export interface StoreHostDeps extends SessionStoreDeps {
  /** The workflow `slug` of published build `buildId`. @throws PlatformError `not_found` */
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  models: ModelProvider;
  /** Cost in USD of a call's usage on `model` (the config's prices; 0 for a model without prices). */
  costOf(model: string | undefined, usage: ModelUsage): number;
  serviceTools(): Promise<ServiceTool[]>;
  callServiceTool(call: { collection: string; name: string; input: unknown }, signal?: AbortSignal): Promise<{ output: unknown; isError: boolean }>;
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  /** Aborted when the turn is cancelled or its worker ends: aborts tool calls in flight. */
  signal?: AbortSignal;
  /** The signal of one model call: {@link signal} combined with a timeout of `timeoutMs` when given (a state's call_seconds). */
  callSignal(timeoutMs?: number): AbortSignal | undefined;
  /** Called with each text delta of a model call (live chat streams); optional. */
  onText?(delta: TextDelta): void;
}

/** The engine's view of a stored session. */
export function sessionView(session: SessionRecord): SessionView {
  return {
    id: session._id, workflow: session.workflow, status: session.status, state: session.state, variables: { ...session.variables },
    lockedVariables: session.lockedVariables, pending: session.pending as SessionView['pending'], visit: { ...session.visit },
    dispatchCount: session.dispatchCount, dispatchId: session.dispatchId, depth: session.depth, inheritedForbid: session.inheritedForbid, ancestry: session.ancestry ?? [],
  };
}

/** A TurnHost for the root turn `rootTurnId` and the child turns it opens. */
export function createStoreHost(deps: StoreHostDeps, rootTurnId: string): TurnHost {
  const allowed = new Set([rootTurnId]);
  const records = async (turnId: string) => {
    if (!allowed.has(turnId)) throw new PlatformError('turn_not_allowed', `Turn ${turnId} is not this worker's.`, { status: 403 });
    return loadTurnRecords(deps, turnId);
  };
  const scope = (s: SessionRecord) => ({ orgId: s.orgId, agentId: s.agentId, environment: s.environment, workflow: s.workflow });

  return {
    async loadTurn(turnId): Promise<TurnContext> {
      const { turn, session } = await records(turnId);
      const workflow = await deps.workflowOf(session.buildId, session.workflow);
      const thread = await readThread(deps, session._id);
      return {
        turnId, kind: turn.kind, input: turn.input, session: sessionView(session), workflow, messages: thread.map((m) => m.message),
        serviceTools: await deps.serviceTools(), promptCache: { ...deps.promptCache, enabled: deps.promptCache.enabled && workflow.promptCache },
      };
    },
    async callModel(turnId, request): Promise<ModelCallReply> {
      const { turn, session } = await records(turnId);
      await checkSpendCaps(deps, scope(session));
      const reply = await streamCall(deps, session, request);
      const costUsd = deps.costOf(request.model, reply.usage);
      await recordUsage(deps, turn, { ...reply.usage, modelCalls: 1, costUsd });
      await addSpend(deps, scope(session), costUsd);
      return { ...reply, costUsd };
    },
    async callTool(turnId, call) {
      await records(turnId);
      return deps.callServiceTool(call, deps.signal);
    },
    async checkpoint(turnId, patch) {
      const { turn } = await records(turnId);
      await applyCheckpoint(deps, turn, patch);
    },
    async openChild(turnId, request) {
      const { session: parent } = await records(turnId);
      const target = (await deps.workflowOf(parent.buildId, parent.workflow)).callable[request.workflow];
      if (!target) throw new PlatformError('not_found', `Workflow ${request.workflow} cannot be called from ${parent.workflow}.`, { status: 404 });
      const entry = { state: target.entry, trigger: target.trigger };
      const child = await insertSession(deps, {
        orgId: parent.orgId, agentId: parent.agentId, environment: parent.environment, workflow: request.workflow, buildId: parent.buildId, commitId: parent.commitId,
        state: entry.state, trigger: entry.trigger, variables: { ...request.arguments as Record<string, never> }, lockedVariables: Object.keys(request.arguments),
        depth: parent.depth + 1, inheritedForbid: request.inheritedForbid, ancestry: request.ancestry,
        parentId: parent._id, rootId: parent.rootId ?? parent._id, dispatchId: request.dispatchId,
      });
      const turn = await insertTurn(deps, child, 'prompt', { message: JSON.stringify(request.arguments) }, 'running');
      allowed.add(turn._id);
      return { sessionId: child._id, turnId: turn._id };
    },
    async resumeChild(turnId, childSessionId, input) {
      const { session: parent } = await records(turnId);
      const child = await sessionsOf(deps).findOne({ _id: childSessionId, parentId: parent._id });
      if (!child) throw new PlatformError('not_found', `Child session ${childSessionId} was not found.`, { status: 404 });
      await sessionsOf(deps).updateOne({ _id: child._id }, { $set: { status: 'running', updatedAt: deps.clock.now() } });
      const { kind, ...rest } = input;
      const turn = await insertTurn(deps, child, kind, rest, 'running');
      allowed.add(turn._id);
      return { turnId: turn._id };
    },
    async endTurn(turnId, outcome: TurnOutcome) {
      const { turn } = await records(turnId);
      await settleTurn(deps, turn as TurnRecord, outcome);
    },
  };
}

async function streamCall(deps: StoreHostDeps, session: SessionRecord, request: Parameters<TurnHost['callModel']>[1]): Promise<Omit<ModelCallReply, 'costUsd'>> {
  const signal = deps.callSignal(request.timeoutMs);
  // The reply is checkpointed as the thread's next message: live deltas carry that message's id.
  const live = { rootId: session.rootId ?? session._id, sessionId: session._id, messageId: `${session._id}:${session.messageCount}` };
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  let finish = 'stop';
  let usage: ModelUsage = noUsage();
  for await (const event of deps.models.stream({ model: request.model, messages: request.messages, tools: request.tools, promptCache: request.promptCache, signal })) {
    if (event.type === 'text') { deps.onText?.({ ...live, offset: text.length, text: event.text }); text += event.text; }
    else if (event.type === 'tool-call') toolCalls.push(event.call);
    else { finish = event.reason; usage = event.usage; }
  }
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage;
  return { text, toolCalls, finish, usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } };
}
