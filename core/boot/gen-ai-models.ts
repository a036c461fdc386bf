/**
 * The GenAI names of a turn's model calls from the config's models section, for the turn runner's spans and metrics
 * (core/session/turn-runner.ts `describeModel`): `gen_ai.provider.name` from the provider's type (`anthropic`,
 * `aws.bedrock`, `openai` for an OpenAI-compatible server) and the provider's own model name.
 *
 * Source: docs/decisions.md D25 (observability); D7 § Models.
 */
import { offeredModelId } from '../adapters/models/ai-model-provider.ts';
import type { MODEL_PROVIDER_TYPES, ModelsConfig } from '../config/config-model.ts';

/** gen_ai.provider.name of each provider type (the GenAI conventions' well-known values). */
const PROVIDER_NAMES: Record<(typeof MODEL_PROVIDER_TYPES)[number], string> = {
  anthropic: 'anthropic',
  bedrock: 'aws.bedrock',
  'openai-compatible': 'openai',
};

/**
 * The provider name and provider model name of offered model `model` (with none named, the default model: see
 * offeredModelId); `{}` for a model the config does not offer.
 */
export function genAiModelOf(
  models: ModelsConfig | undefined,
  model: string | undefined,
): { provider?: string; model?: string } {
  const id = offeredModelId(models, model);
  const offered = models?.offered.find((m) => m.id === id);
  if (!offered) return {};
  const type = models?.providers.find((p) => p.id === offered.provider)?.type;
  return { ...(type ? { provider: PROVIDER_NAMES[type] } : {}), model: offered.model ?? offered.id };
}

/** The turn runner's `describeModel` over the config's models section (see {@link genAiModelOf}). */
export function genAiModels(
  models: ModelsConfig | undefined,
): (model: string | undefined) => ReturnType<typeof genAiModelOf> {
  return (model) => genAiModelOf(models, model);
}
