/**
 * What scripts/start reads of its environment, shared by the platform config it builds (./start-config.ts) and the
 * design agent's model (./start-design-agent.ts): a variable's trimmed value, a provider type and a price list.
 *
 * Source: docs/decisions.md D7 § Models (scripts/start paragraph).
 */
import type { ModelsConfig } from '../core/config/config-model.ts';

/** scripts/start's environment. */
export type Env = Record<string, string | undefined>;

const providerTypes = ['openai-compatible', 'anthropic', 'bedrock'] as const;

/** A variable's value, trimmed; undefined when unset or blank. */
export const value = (env: Env, name: string) => (env[name] ?? '').trim() || undefined;

/** The provider type `<prefix>_PROVIDER` names, or openai-compatible with a base URL. @throws Error naming the variable */
export function providerType(env: Env, baseUrl: string | undefined, prefix = 'CAIRN_MODEL'): (typeof providerTypes)[number] {
  const named = value(env, `${prefix}_PROVIDER`);
  if (named === undefined) {
    if (baseUrl !== undefined) return 'openai-compatible';
    throw new Error(`${prefix}_PROVIDER is not set and neither is ${prefix}_BASE_URL: set ${prefix}_BASE_URL for an OpenAI-compatible server, or ${prefix}_PROVIDER to anthropic or bedrock.`);
  }
  const type = providerTypes.find((t) => t === named);
  if (type === undefined) throw new Error(`${prefix}_PROVIDER must be one of ${providerTypes.join(', ')}.`);
  return type;
}

/** The prices `<prefix>_PRICES` gives (default all zero). @throws Error naming the variable */
export function prices(env: Env, prefix = 'CAIRN_MODEL'): ModelsConfig['offered'][number]['prices'] {
  const text = value(env, `${prefix}_PRICES`);
  if (text === undefined) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const numbers = text.split(',').map((part) => part.trim());
  if (numbers.length !== 4 || numbers.some((n) => !/^\d+(\.\d+)?$/.test(n))) {
    throw new Error(`${prefix}_PRICES must be four numbers, input,output,cacheRead,cacheWrite in USD per million tokens (for example 3,15,0.3,3.75).`);
  }
  const [input, output, cacheRead, cacheWrite] = numbers.map(Number);
  return { input, output, cacheRead, cacheWrite };
}
