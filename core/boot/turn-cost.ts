/**
 * The cost of a model call from the config's prices, for the turn runner (core/session/turn-runner.ts `costOf`).
 *
 * Source: docs/decisions.md D7 § Models; spec/platform-service.md § Session facts named (spend cap).
 */
import { offeredModelId } from '../adapters/models/ai-model-provider.ts';
import type { ModelsConfig } from '../config/config-model.ts';
import { costOf as priceUsage } from '../model/cost.ts';
import type { ModelUsage } from '../ports/model-provider.ts';

/** Cost in USD of `usage` on `model` (with none named, the model the call ran on: see offeredModelId); 0 without
 * prices. */
export function configuredCost(models: ModelsConfig | undefined, model: string | undefined, usage: ModelUsage): number {
  const id = offeredModelId(models, model);
  const offered = models?.offered.find((m) => m.id === id);
  return offered ? priceUsage(usage, offered.prices) : 0;
}

/** The turn runner's `costOf` over the config's models section (see {@link configuredCost}). */
export function turnCost(models: ModelsConfig | undefined): (model: string | undefined, usage: ModelUsage) => number {
  return (model, usage) => configuredCost(models, model, usage);
}
