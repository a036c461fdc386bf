/**
 * One model call as the broker makes it, metered: reserve an upper bound of its cost on every capped counter it
 * counts in (its workflow and every ancestor workflow), call the model with the workflow's output-token limit and a
 * time bound, then settle the reservation to the cost of the reported usage. A call that fails is charged what the
 * provider reported before failing; without a report, one that had already streamed output (aborted or cut off
 * mid-stream: the provider bills it) is charged its prompt bound plus the output received; one that failed before
 * any output (unreachable, refused) is charged nothing and its reservation is released. What a call is charged is
 * added to its turn's and its session's usage ({@link recordUsage}).
 *
 * Source: docs/decisions.md D17 § 5 (spend caps hold under concurrency); spec/platform-service.md § Session facts
 * named.
 */
import type { ModelProvider, ModelToolCall, ModelUsage, PromptCacheSetting } from '../ports/model-provider.ts';
import { trustedModel, trustedPromptCache } from './call-choice.ts';
import type { TextDelta } from '../ports/text-deltas.ts';
import {
  callCostBound,
  type ChargedUsage,
  DEFAULT_OUTPUT_TOKENS_PER_CALL,
  failedCallUsage,
  finishedCallUsage,
  hasPrices,
  promptTokenBound,
} from './call-estimate.ts';
import { noUsage, type UsageTotals } from './usage-model.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import { RESERVATION_GRACE_MS, reserveSpend, settleSpend, spendScopes } from './spend-reservations.ts';
import type { ModelCallReply, ModelCallRequest } from './turn-host.ts';
import type { TurnTrace } from './turn-trace.ts';
import type { WorkflowView } from './workflow-view.ts';

/** What a metered call needs (a part of core/session/store-host.ts StoreHostDeps). */
export interface MeteredCallDeps extends SessionStoreDeps {
  /** The workflow `slug` of published build `buildId` (its limits). */
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  models: ModelProvider;
  /** Cost in USD of a usage on `model` (the config's prices; 0 for a model without prices). */
  costOf(model: string | undefined, usage: ModelUsage): number;
  /** The signal of one model call, bounded by `timeoutMs`. */
  callSignal(timeoutMs?: number): AbortSignal | undefined;
  /** The operator's prompt-cache setting (on for a call only where its workflow allows it). */
  promptCache: PromptCacheSetting;
  /** Called with each text delta (live chat streams); optional. */
  onText?(delta: TextDelta): void;
  /** The turn run's recorder: a `chat` span and a step per call (docs/decisions.md D25); absent, none. */
  trace?: Pick<TurnTrace, 'modelCall'>;
}

/** What a call streamed before it ended or failed. */
interface Streamed {
  text: string;
  toolCalls: ModelToolCall[];
}

/**
 * Makes one metered model call for `turn` of `session`. The call's model and prompt cache are taken from the
 * workflow and the session's recorded state (./call-choice.ts), whatever `asked` names: the worker is not trusted.
 * @throws PlatformError `spend_cap_reached` (429) or `spend_cap_unpriced` (422) before the call
 *   (core/session/spend-reservations.ts); the model's errors (core/ports/model-provider.ts) after it was charged
 */
export async function meteredModelCall(
  deps: MeteredCallDeps,
  turn: Pick<TurnRecord, '_id' | 'sessionId'>,
  session: SessionRecord,
  asked: ModelCallRequest,
): Promise<ModelCallReply> {
  const workflow = await deps.workflowOf(session.buildId, session.workflow);
  const request = {
    ...asked,
    model: trustedModel(workflow, session.state, asked.model),
    promptCache: trustedPromptCache(deps.promptCache, workflow),
  };
  const maxOutputTokens = workflow.limits.outputTokensPerCall ?? DEFAULT_OUTPUT_TOKENS_PER_CALL;
  // A call never outlives its turn's wall time, so its reservation (that bound plus a grace) never expires under it.
  const turnMs = workflow.limits.turnSeconds * 1000;
  const timeoutMs = Math.min(request.timeoutMs ?? turnMs, turnMs);
  const price = (usage: ModelUsage) => deps.costOf(request.model, usage);
  const promptTokens = promptTokenBound(request.messages, request.tools);
  const bound = callCostBound(price, promptTokens, maxOutputTokens);
  const reservation = await reserveSpend(deps, await spendScopes(deps, session), bound, {
    ttlMs: timeoutMs + RESERVATION_GRACE_MS,
    priced: hasPrices(price),
    model: request.model ?? workflow.model,
  });
  const streamed: Streamed = { text: '', toolCalls: [] };
  let costUsd = 0;
  const timed = deps.trace?.modelCall(turn._id, { model: request.model ?? workflow.model, messages: request.messages });
  try {
    const call = () =>
      streamCall(deps, session, { ...request, timeoutMs }, { maxOutputTokens, promptTokens, streamed });
    const { estimated, ...reply } = await (timed ? timed.run(call) : call());
    costUsd = price(reply.usage);
    timed?.ended(reply, costUsd);
    // A cost from an estimate (the provider reported no usage) is counted on the session as such.
    await recordUsage(deps, turn, {
      ...reply.usage,
      modelCalls: 1,
      costUsd,
      ...(estimated ? { estimatedCalls: 1 } : {}),
    });
    return { ...reply, costUsd };
  } catch (error) {
    const usage = failedCallUsage(error, promptTokens, streamed);
    const charged = usage !== undefined && costUsd === 0;
    if (charged) costUsd = price(usage);
    timed?.failed(error, usage, costUsd);
    if (charged) await recordUsage(deps, turn, { ...usage, modelCalls: 1, costUsd });
    throw error;
  } finally {
    await settleSpend(deps, reservation, costUsd);
  }
}

/** The output cap of a {@link streamCall} and where it collects what streams. */
interface CallStream {
  /** The most output tokens the call may produce. */
  maxOutputTokens: number;
  /** The prompt's token bound (what a call whose provider reports no usage is charged for its input). */
  promptTokens: number;
  /** Collects the reply's text and tool calls as they stream (read on failure: what was received is priced). */
  streamed: Streamed;
}

async function streamCall(
  deps: MeteredCallDeps,
  session: SessionRecord,
  request: ModelCallRequest,
  { maxOutputTokens, promptTokens, streamed }: CallStream,
): Promise<Omit<ModelCallReply, 'costUsd'> & { estimated: boolean }> {
  const signal = deps.callSignal(request.timeoutMs);
  // The reply is checkpointed as the thread's next message: live deltas carry that message's id.
  const messageId = `${session._id}:${session.messageCount}`;
  const live = { rootId: session.rootId ?? session._id, sessionId: session._id, messageId };
  let finish = 'stop';
  let charged: ChargedUsage = { usage: noUsage(), estimated: false };
  const { model, messages, tools, promptCache } = request;
  const call = { model, messages, tools, promptCache, maxOutputTokens, signal };
  for await (const event of deps.models.stream(call)) {
    if (event.type === 'text') {
      deps.onText?.({ ...live, offset: streamed.text.length, text: event.text });
      streamed.text += event.text;
    } else if (event.type === 'tool-call') streamed.toolCalls.push(event.call);
    else {
      finish = event.reason;
      charged = finishedCallUsage(event, promptTokens, streamed);
    }
  }
  const { inputTokens, outputTokens: output, cacheReadTokens, cacheWriteTokens } = charged.usage;
  const usage = { inputTokens, outputTokens: output, cacheReadTokens, cacheWriteTokens };
  return { text: streamed.text, toolCalls: streamed.toolCalls, finish, usage, estimated: charged.estimated };
}

const usageInc = (prefix: string, usage: UsageTotals): Record<string, number> =>
  Object.fromEntries(
    Object.entries(usage).map(([key, value]) => [`${prefix}.${key}`, value]),
  );

/** Adds one model call's usage and cost to the turn and its session. */
export async function recordUsage(
  deps: SessionStoreDeps,
  turn: Pick<TurnRecord, '_id' | 'sessionId'>,
  usage: UsageTotals,
): Promise<void> {
  await turnsOf(deps).updateOne({ _id: turn._id }, { $inc: usageInc('usage', usage) });
  await sessionsOf(deps).updateOne({ _id: turn.sessionId }, { $inc: usageInc('usage', usage) });
}
