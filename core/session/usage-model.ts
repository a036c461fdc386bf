/**
 * Usage summed over model calls (a turn's, a session's): token counts, model calls, and cost in USD.
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D17 § 5.
 */
import type { ModelUsage } from '../ports/model-provider.ts';

/** Usage summed over calls: token counts, model calls, and cost in USD. */
export interface UsageTotals extends ModelUsage {
  modelCalls: number;
  costUsd: number;
  /**
   * Model calls among `modelCalls` whose cost is an estimate: the provider reported no usage, so the call was
   * charged its prompt bound plus the output received (core/session/call-estimate.ts). Absent: none.
   */
  estimatedCalls?: number;
}

/** The zero usage. */
export const noUsage = (): UsageTotals => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
  costUsd: 0,
});
