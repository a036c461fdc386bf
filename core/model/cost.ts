/**
 * The cost of a model call in USD from the configured prices.
 *
 * Source: spec/platform-service.md § Config sections named (prices are USD per million tokens); § Spend cap.
 */
import type { ModelUsage } from '../ports/model-provider.ts';

/**
 * Prices of one model in USD per million tokens. `cacheRead` and `cacheWrite` default to `input` when absent
 * (the config requires them while PLATFORM_PROMPT_CACHE is on).
 */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const PER_MILLION = 1_000_000;

/**
 * Cost of `usage` under `prices`, in USD (a non-negative number, not rounded).
 *
 * Source: spec/platform-service.md § Config sections named
 */
export function costOf(usage: ModelUsage, prices: ModelPrices): number {
  const tokensTimesPrice = usage.inputTokens * prices.input +
    usage.outputTokens * prices.output +
    usage.cacheReadTokens * (prices.cacheRead ?? prices.input) +
    usage.cacheWriteTokens * (prices.cacheWrite ?? prices.input);
  return tokensTimesPrice / PER_MILLION;
}

/**
 * The sum of two usages (the usage of a turn made of several calls).
 *
 * Source: spec/platform-service.md § Session facts (usage)
 */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** A usage of no tokens. */
export const NO_USAGE: ModelUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
