/**
 * The `designAgent` section `scripts/start` gives the platform. By default the design agent uses the workflow
 * model's provider (CAIRN_MODEL_PROVIDER, CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY, CAIRN_MODEL_REGION,
 * CAIRN_MODEL_PRICES) and model (CAIRN_MODEL), CAIRN_DESIGN_MODEL naming a model of its own; when its provider
 * differs, CAIRN_DESIGN_MODEL_PROVIDER, CAIRN_DESIGN_MODEL_BASE_URL, CAIRN_DESIGN_MODEL_API_KEY and
 * CAIRN_DESIGN_MODEL_PRICES (with CAIRN_DESIGN_MODEL) say it all. Keys go in as `${{NAME}}` placeholders, never as
 * values. With no model variable at all there is no design agent (outside production the Design tab then says what
 * to set).
 *
 * Source: issue "The design agent" § Development without a key; spec/platform-service.md § Config sections named
 * (designAgent).
 */
import type { DesignAgentConfig } from '../core/config/config-model.ts';
import { type Env, prices, providerType, value } from './start-env.ts';

/** The variables of a design agent's own provider (any set: the design agent uses them, not CAIRN_MODEL_*). */
export const DESIGN_PROVIDER_VARIABLES = [
  'CAIRN_DESIGN_MODEL_PROVIDER', 'CAIRN_DESIGN_MODEL_BASE_URL', 'CAIRN_DESIGN_MODEL_API_KEY', 'CAIRN_DESIGN_MODEL_PRICES',
] as const;

/**
 * The designAgent section from the environment, or undefined when no model variable is set.
 * @throws Error naming the variable that is missing or malformed (never a key's value)
 */
export function designAgentFromEnv(env: Env): DesignAgentConfig | undefined {
  const own = DESIGN_PROVIDER_VARIABLES.some((name) => value(env, name) !== undefined);
  const prefix = own ? 'CAIRN_DESIGN_MODEL' : 'CAIRN_MODEL';
  const model = value(env, 'CAIRN_DESIGN_MODEL') ?? (own ? undefined : value(env, 'CAIRN_MODEL'));
  const baseUrl = value(env, `${prefix}_BASE_URL`);
  const anyProvider = value(env, `${prefix}_PROVIDER`) !== undefined || baseUrl !== undefined;
  if (!own && !anyProvider && model === undefined) return undefined;
  if (model === undefined) {
    throw new Error(own
      ? 'CAIRN_DESIGN_MODEL is not set: name the design agent\'s model on its own provider (CAIRN_DESIGN_MODEL_*).'
      : 'CAIRN_MODEL is not set: name the model to offer, or unset the other CAIRN_MODEL_* variables.');
  }
  if (baseUrl !== undefined && !/^https?:\/\/[^/\s]+/.test(baseUrl)) {
    throw new Error(`${prefix}_BASE_URL must be an http or https URL, such as http://127.0.0.1:11434/v1.`);
  }
  const type = providerType(env, baseUrl, prefix);
  if (type === 'openai-compatible' && baseUrl === undefined) {
    throw new Error(`${prefix}_BASE_URL is required for an openai-compatible provider: the server's API root.`);
  }
  const region = type === 'bedrock' ? value(env, 'CAIRN_MODEL_REGION') ?? value(env, 'AWS_REGION') : undefined;
  if (type === 'bedrock' && region === undefined) {
    throw new Error('CAIRN_MODEL_REGION (or AWS_REGION) is required for a bedrock design agent, such as us-east-1.');
  }
  const key = `${prefix}_API_KEY`;
  return {
    provider: type,
    model,
    ...(baseUrl === undefined ? {} : { apiBaseUrl: baseUrl }),
    ...(value(env, key) === undefined ? {} : { apiKey: `\${{${key}}}` }),
    ...(region === undefined ? {} : { region }),
    prices: prices(env, prefix),
  };
}

/** One banner line saying which design agent model is configured, or that none is and what to set. */
export function designAgentLine(agent: DesignAgentConfig | undefined): string {
  if (agent === undefined) {
    return 'Design agent:                 none configured (the Design tab says so): set CAIRN_MODEL_* (CAIRN_DESIGN_MODEL ' +
      'for a model of its own)';
  }
  const at = agent.apiBaseUrl ? ` at ${agent.apiBaseUrl}` : '';
  return `Design agent:                 ${agent.model} (${agent.provider}${at})`;
}
