/**
 * Language models of the `ai` package for the providers of the config's models section, and the prompt-cache
 * options each provider takes.
 *
 * Prompt caching per provider (PLATFORM_PROMPT_CACHE on):
 * - anthropic: cache-control breakpoints (`{ type: 'ephemeral', ttl }`) on the system prompt (which caches the
 *   tools before it) and on the last message, so the next call of a turn reads the conversation so far.
 * - bedrock: cache points (`{ type: 'default' }`, with `ttl: '1h'` when PLATFORM_PROMPT_CACHE_TTL is 1h) at the
 *   same two places; models without prompt caching ignore them.
 * - openai-compatible: nothing is sent; OpenAI and servers like it cache long prompt prefixes by themselves and
 *   report `prompt_tokens_details.cached_tokens`, which becomes cacheReadTokens. Caching cannot be turned off there.
 * With PLATFORM_PROMPT_CACHE off, no breakpoint or cache point is sent.
 *
 * Source: docs/decisions.md D7 § Models; spec/platform-service.md § Environment variables (PLATFORM_PROMPT_CACHE,
 * _TTL).
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelProviderConfig } from '../../config/config-model.ts';
import type { PromptCacheSetting } from '../../ports/model-provider.ts';

/** `providerOptions` of one message, as the `ai` package takes them. */
export type CacheOptions = Record<string, Record<string, unknown>>;

/** Makes language models of one configured provider. */
export type ModelFactory = (modelName: string) => LanguageModel;

/**
 * A factory of language models for `provider`.
 * @param fetchImpl - the fetch the provider uses (default the global fetch); cancellation aborts its request
 *
 * Source: docs/decisions.md D7 § Models
 */
export function modelFactory(provider: ModelProviderConfig, fetchImpl?: typeof fetch): ModelFactory {
  const common = { ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }) };
  switch (provider.type) {
    case 'openai-compatible': {
      const create = createOpenAICompatible({
        name: provider.id,
        baseURL: provider.apiBaseUrl ?? '',
        apiKey: provider.apiKey,
        includeUsage: true,
        ...common,
      });
      return (name) => create.chatModel(name);
    }
    case 'anthropic': {
      const create = createAnthropic({
        apiKey: provider.apiKey ?? '',
        ...(provider.apiBaseUrl === undefined ? {} : { baseURL: provider.apiBaseUrl }),
        ...common,
      });
      return (name) => create(name);
    }
    case 'bedrock': {
      // Without apiKey (a Bedrock API key), the provider signs with the AWS credentials of the process.
      const create = createAmazonBedrock({
        region: provider.region,
        ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey }),
        ...(provider.apiBaseUrl === undefined ? {} : { baseURL: provider.apiBaseUrl }),
        ...common,
      });
      return (name) => create(name);
    }
  }
}

/**
 * The providerOptions that mark a cache breakpoint on a message for `type`, or undefined when nothing is sent
 * (caching off, or an openai-compatible provider).
 *
 * Source: spec/platform-service.md § Environment variables (PLATFORM_PROMPT_CACHE, PLATFORM_PROMPT_CACHE_TTL)
 */
export function cacheBreakpoint(
  type: ModelProviderConfig['type'],
  cache: PromptCacheSetting,
): CacheOptions | undefined {
  if (!cache.enabled) return undefined;
  if (type === 'anthropic') return { anthropic: { cacheControl: { type: 'ephemeral', ttl: cache.ttl } } };
  if (type === 'bedrock') {
    return { bedrock: { cachePoint: cache.ttl === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } } };
  }
  return undefined;
}
