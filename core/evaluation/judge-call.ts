/**
 * One judge call of a `grade` step, metered as an agent's model calls are: an upper bound of its cost is reserved on
 * the spend caps of the case's workflow before the call (a cap it does not fit fails the grade with
 * `spend_cap_reached`, and no model is called), and settled to the cost of the reported usage after it. The judge's
 * output is bounded ({@link JUDGE_OUTPUT_TOKENS}); its usage and cost are reported apart from the session's. A judge
 * call that fails is charged as the broker charges one (core/session/call-estimate.ts `failedCallUsage`).
 *
 * Source: issue "Evaluations" § Runs (spend counted against the environment's caps), § Rubrics (cost and usage of
 * the judge reported apart); docs/decisions.md D17 § 5 (spend caps hold under concurrency).
 */
import type { ModelMessage, ModelProvider, ModelUsage } from '../ports/model-provider.ts';
import { NO_USAGE } from '../model/cost.ts';
import {
  callCostBound,
  failedCallUsage,
  finishedCallUsage,
  hasPrices,
  promptTokenBound,
} from '../session/call-estimate.ts';
import type { SpendScope } from '../session/spend.ts';
import { RESERVATION_GRACE_MS, reserveSpend, settleSpend, type SpendDeps } from '../session/spend-reservations.ts';
import type { JudgeAnswer } from './grade.ts';

/** The most output tokens a judge may produce (a score and a short reason need far fewer). */
export const JUDGE_OUTPUT_TOKENS = 1024;
/** How long a judge call's reservation holds before it lapses (ms), beyond the grace. */
const JUDGE_CALL_MS = 120_000;

/** One judge call: the provider, the model, the messages, the prompt cache setting, and the prices. */
export interface JudgeCall {
  models: ModelProvider;
  model: string | undefined;
  messages: ModelMessage[];
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  /** Cost in USD of a usage on the model (0 without prices). */
  costOf(model: string | undefined, usage: ModelUsage): number;
}

/**
 * Makes one judge call within the spend caps of `scope`.
 * @throws PlatformError `spend_cap_reached` (429) before the call; the model's errors after it (charged what it
 *   reported, else the prompt and the output received, else nothing)
 */
export async function meteredJudgeCall(deps: SpendDeps, scope: SpendScope, call: JudgeCall): Promise<JudgeAnswer> {
  const price = (usage: ModelUsage) => call.costOf(call.model, usage);
  const promptTokens = promptTokenBound(call.messages, []);
  const bound = callCostBound(price, promptTokens, JUDGE_OUTPUT_TOKENS);
  const reservation = await reserveSpend(deps, [scope], bound, {
    ttlMs: JUDGE_CALL_MS + RESERVATION_GRACE_MS,
    priced: hasPrices(price),
    ...(call.model === undefined ? {} : { model: call.model }),
  });
  let text = '';
  let usage: ModelUsage = NO_USAGE;
  let costUsd = 0;
  try {
    const events = call.models.stream({
      ...(call.model === undefined ? {} : { model: call.model }),
      messages: call.messages,
      promptCache: call.promptCache,
      maxOutputTokens: JUDGE_OUTPUT_TOKENS,
    });
    for await (const event of events) {
      if (event.type === 'text') text += event.text;
      // A provider that reported no usage is charged the estimate (the prompt bound and the output received).
      if (event.type === 'finish') usage = finishedCallUsage(event, promptTokens, { text, toolCalls: [] }).usage;
    }
    costUsd = price(usage);
    return { text, usage, costUsd };
  } catch (error) {
    // Charged as the broker charges a failed call: what was reported, or the prompt and the output received.
    const charged = failedCallUsage(error, promptTokens, { text, toolCalls: [] });
    if (charged !== undefined) costUsd = price(charged);
    throw error;
  } finally {
    await settleSpend(deps, reservation, costUsd);
  }
}
