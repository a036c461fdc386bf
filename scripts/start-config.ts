/**
 * The config `scripts/start` gives the platform: a `models` section built from CAIRN_MODEL_* and the
 * `services` entry of the built-in semantic service, passed as PLATFORM_CONFIG (one line of JSON in the
 * entrypoint's environment). PLATFORM_CONFIG rather than a generated file: nothing is written to disk, so
 * nothing goes stale in the data directory when the variables change between starts, and the document
 * holds only `${{NAME}}` placeholders (the API key and the demo token reach the platform as variables).
 *
 * A config of the user's (PLATFORM_CONFIG, PLATFORM_CONFIG_FILE or config.yaml in the app directory) wins
 * whole: it is left alone, nothing is added to it, and one line says what was not applied.
 *
 * Source: docs/decisions.md D7 § Models (scripts/start paragraph), § The semantic service as a tool collection;
 * spec/platform-service.md § Rules 13–14.
 */
import { designAgentFromEnv, designAgentLine } from './start-design-agent.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigDocument, ModelsConfig } from '../core/config/config-model.ts';
import { type Env, prices, providerType, value } from './start-env.ts';

/** The variables a models section is built from. */
export const MODEL_VARIABLES = ['CAIRN_MODEL_PROVIDER', 'CAIRN_MODEL_BASE_URL', 'CAIRN_MODEL_API_KEY', 'CAIRN_MODEL', 'CAIRN_MODEL_PRICES', 'CAIRN_MODEL_REGION'] as const;
/** The variable holding the demo token of the flights project (read through a placeholder). */
export const DEMO_TOKEN_VARIABLE = 'CAIRN_DEMO_SEMANTIC_TOKEN';
/** What to set, for the banner and for refusals. */
export const MODEL_HINT = 'set CAIRN_MODEL_BASE_URL and CAIRN_MODEL for an OpenAI-compatible server (plus CAIRN_MODEL_API_KEY if it needs a key), or CAIRN_MODEL_PROVIDER=anthropic with CAIRN_MODEL_API_KEY and CAIRN_MODEL';

/** What scripts/start passes and prints. */
export interface StartConfig {
  /** Added to the entrypoint's environment: PLATFORM_CONFIG, or nothing when the user's config wins. */
  env: Record<string, string>;
  /** Lines to print before the start (the user's config winning). */
  lines: string[];
  /** One banner line saying which model is configured, or that none is and what to set. */
  modelLine: string;
  /** One banner line saying which design agent model is configured, or that none is and what to set. */
  designLine: string;
  /** False when the user's config wins (the semantic service entry is then theirs to add). */
  offersSemanticService: boolean;
}

/** The user's own config source, if any: its label. */
function userConfig(env: Env, appDir: string): string | undefined {
  if (value(env, 'PLATFORM_CONFIG')) return 'PLATFORM_CONFIG';
  if (value(env, 'PLATFORM_CONFIG_FILE')) return `PLATFORM_CONFIG_FILE (${env.PLATFORM_CONFIG_FILE})`;
  const file = join(appDir, 'config.yaml');
  return existsSync(file) ? file : undefined;
}

/**
 * Builds the config for the entrypoint.
 * @param env - scripts/start's environment
 * @param where - the app directory (for config.yaml) and semantic-mcp's loopback port
 * @throws Error naming the CAIRN_MODEL_* variable that is missing or malformed (never a value of the key)
 */
export function buildStartConfig(env: Env, where: { appDir: string; semanticMcpPort: number }): StartConfig {
  const own = userConfig(env, where.appDir);
  if (own !== undefined) {
    const lines = !MODEL_VARIABLES.some((name) => value(env, name) !== undefined) ? [] : [`your config (${own}) wins, so the CAIRN_MODEL_* variables were not applied: add a models section to it instead (README § Configure)`];
    lines.push(`your config (${own}) is used as it is: add the services entry { id: semantic, endpoint: http://127.0.0.1:${where.semanticMcpPort}/mcp/flights/mcp, token: "\${{${DEMO_TOKEN_VARIABLE}}}" } to it to offer the demo semantic collection`);
    return {
      env: {}, lines, modelLine: `Model:                        from your config (${own})`,
      designLine: `Design agent:                 from your config (${own})`, offersSemanticService: false,
    };
  }
  const models = modelsFromEnv(env);
  const designAgent = designAgentFromEnv(env);
  const document: ConfigDocument = {
    ...(models === undefined ? {} : { models }),
    ...(designAgent === undefined ? {} : { designAgent }),
    services: [{ id: 'semantic', endpoint: `http://127.0.0.1:${where.semanticMcpPort}/mcp/flights/mcp`, token: `\${{${DEMO_TOKEN_VARIABLE}}}` }],
  };
  return {
    env: { PLATFORM_CONFIG: JSON.stringify(document) }, lines: [], modelLine: modelLine(models),
    designLine: designAgentLine(designAgent), offersSemanticService: true,
  };
}

function modelLine(models: ModelsConfig | undefined): string {
  if (models === undefined) return `Model:                        none configured, so a turn fails at once saying so: ${MODEL_HINT}, then start again`;
  const provider = models.providers[0];
  return `Model:                        ${models.offered[0].id} (${provider.type}${provider.apiBaseUrl ? ` at ${provider.apiBaseUrl}` : ''}${provider.region ? ` in ${provider.region}` : ''}${provider.apiKey ? ', key from CAIRN_MODEL_API_KEY' : ''})`;
}

/**
 * The models section from CAIRN_MODEL_*, or undefined when none of them is set.
 * Prices: CAIRN_MODEL_PRICES=input,output,cacheRead,cacheWrite in USD per million tokens; default all zero
 * (costs then read 0 USD). Bedrock's region: CAIRN_MODEL_REGION, else AWS_REGION.
 * @throws Error naming the variable
 */
export function modelsFromEnv(env: Env): ModelsConfig | undefined {
  if (!MODEL_VARIABLES.some((name) => value(env, name) !== undefined)) return undefined;
  const baseUrl = value(env, 'CAIRN_MODEL_BASE_URL');
  const type = providerType(env, baseUrl);
  const model = value(env, 'CAIRN_MODEL');
  if (model === undefined) throw new Error(`CAIRN_MODEL is not set: name the model to offer (for example llama3.1:8b or claude-sonnet-4-5), or unset the other CAIRN_MODEL_* variables.`);
  if (baseUrl !== undefined && !/^https?:\/\/[^/\s]+/.test(baseUrl)) throw new Error('CAIRN_MODEL_BASE_URL must be an http or https URL, such as http://127.0.0.1:11434/v1.');
  if (type === 'openai-compatible' && baseUrl === undefined) throw new Error('CAIRN_MODEL_BASE_URL is required for an openai-compatible provider: the server\'s API root, such as http://127.0.0.1:11434/v1.');
  const region = value(env, 'CAIRN_MODEL_REGION') ?? value(env, 'AWS_REGION');
  if (type === 'bedrock' && region === undefined) throw new Error('CAIRN_MODEL_REGION (or AWS_REGION) is required for CAIRN_MODEL_PROVIDER=bedrock, such as us-east-1.');
  const provider = {
    id: type,
    type,
    ...(baseUrl === undefined ? {} : { apiBaseUrl: baseUrl }),
    ...(value(env, 'CAIRN_MODEL_API_KEY') === undefined ? {} : { apiKey: '${{CAIRN_MODEL_API_KEY}}' }),
    ...(type === 'bedrock' ? { region } : {}),
  };
  return { providers: [provider], offered: [{ id: model, provider: type, prices: prices(env) }], default: model };
}
