/**
 * The ModelProvider on the `ai` package: one streamed call per request, to the provider of the offered model.
 * Tools have no `execute`, so a tool call ends the call and goes to the caller; the tool results come back as a
 * `tool` message of the next request. Aborting the request's signal aborts the HTTP request.
 *
 * Source: docs/architecture.md § Ports and adapters (ModelProvider); docs/decisions.md D7 § Models.
 */
import { streamText, type TextStreamPart, type ToolSet } from 'ai';
import type { ModelProviderConfig, ModelsConfig, OfferedModelConfig } from '../../config/config-model.ts';
import type {
  ModelEvent,
  ModelFinishReason,
  ModelProvider,
  ModelRequest,
  ModelUsage,
} from '../../ports/model-provider.ts';
import type { PlatformError } from '../../ports/platform-error.ts';
import { cacheBreakpoint, type ModelFactory, modelFactory } from './language-models.ts';
import { type CallLabel, modelCancelled, modelError, modelNotConfigured } from './model-errors.ts';
import { toAiMessages, toAiTools, toModelUsage } from './model-messages.ts';

/** Options of {@link createAiModelProvider}. */
export interface AiModelProviderOptions {
  /** The resolved models section; undefined when the config has none (every call then fails `model_not_configured`). */
  models: ModelsConfig | undefined;
  /** Retries of a 429, 5xx or network failure, with the `ai` package's exponential backoff from 2 s. Default 2. */
  maxRetries?: number;
  /** The fetch providers use; default the global fetch. */
  fetch?: typeof fetch;
}

/** An offered model with its provider. */
interface Route {
  offered: OfferedModelConfig;
  provider: ModelProviderConfig;
}

/**
 * A ModelProvider for the config's models section.
 *
 * Source: docs/decisions.md D7 § Models
 */
export function createAiModelProvider(options: AiModelProviderOptions): ModelProvider {
  const factories = new Map<string, ModelFactory>();
  const factoryOf = (provider: ModelProviderConfig): ModelFactory => {
    const known = factories.get(provider.id) ?? modelFactory(provider, options.fetch);
    factories.set(provider.id, known);
    return known;
  };
  return {
    stream: (request) =>
      streamCall(request, () => routeOf(options.models, request.model), factoryOf, options.maxRetries ?? 2),
  };
}

/**
 * The id of the offered model a request gets: the one it names; with none named, `models.default`, or the first
 * offered model when the default was left out by a placeholder (or not given). Undefined when nothing is offered.
 * Pricing uses it too, so a call is priced as the model it ran on.
 *
 * Source: docs/decisions.md D7 § Models
 */
export function offeredModelId(models: ModelsConfig | undefined, requested: string | undefined): string | undefined {
  const offered = models?.offered ?? [];
  return requested ?? (offered.some((m) => m.id === models?.default) ? models?.default : offered[0]?.id);
}

/**
 * The offered model a request names (or the default) and its provider.
 * @throws PlatformError `model_not_configured`
 */
function routeOf(models: ModelsConfig | undefined, requested: string | undefined): Route {
  const offered = models?.offered ?? [];
  const id = offeredModelId(models, requested);
  const model = offered.find((m) => m.id === id);
  const provider = models?.providers.find((p) => p.id === model?.provider);
  if (model === undefined || provider === undefined) throw modelNotConfigured(id, offered.map((m) => m.id));
  return { offered: model, provider };
}

async function* streamCall(
  request: ModelRequest,
  routeNow: () => Route,
  factoryOf: (p: ModelProviderConfig) => ModelFactory,
  maxRetries: number,
): AsyncGenerator<ModelEvent> {
  const route = routeNow();
  const label: CallLabel = { model: route.offered.id, provider: route.provider.id };
  const signal = request.signal;
  if (isAborted(signal)) throw modelCancelled(label);
  let failure: unknown;
  const result = streamText({
    model: factoryOf(route.provider)(route.offered.model ?? route.offered.id),
    messages: toAiMessages(request.messages, cacheBreakpoint(route.provider.type, request.promptCache)),
    allowSystemInMessages: true,
    tools: toAiTools(request.tools),
    maxRetries,
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(signal === undefined ? {} : { abortSignal: signal }),
    onError: ({ error }) => {
      failure = error;
    },
  });
  // An error part is held until the stream's finish, which may still carry the usage the provider reported: a
  // failed call that was billed is thrown with that usage (core/ports/model-provider.ts reportedUsage).
  let failed: { error: unknown } | undefined;
  try {
    for await (const part of result.stream) {
      if (part.type === 'error' && !isAborted(signal)) {
        failed ??= { error: part.error };
        continue;
      }
      if (failed !== undefined) {
        if (part.type === 'finish') {
          throw withUsage(modelError(failed.error, label, isAborted(signal)), toModelUsage(part.totalUsage));
        }
        continue;
      }
      const event = toEvent(part, label, signal);
      if (event !== undefined) yield event;
      if (event?.type === 'finish') return;
    }
  } catch (error) {
    throw modelError(error, label, isAborted(signal));
  }
  throw modelError(
    failed?.error ?? failure ?? new Error('the stream ended without a finish'),
    label,
    isAborted(signal),
  );
}

/** `error` carrying `usage` when the provider reported any tokens. */
function withUsage(error: PlatformError, usage: ModelUsage): PlatformError {
  const billed = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens > 0;
  return billed ? Object.assign(error, { usage }) : error;
}

/** One stream part as a port event (undefined: a part the port does not carry). @throws PlatformError on error/abort */
function toEvent(
  part: TextStreamPart<ToolSet>,
  label: CallLabel,
  signal: AbortSignal | undefined,
): ModelEvent | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'tool-call':
      return { type: 'tool-call', call: { id: part.toolCallId, name: part.toolName, input: part.input } };
    case 'finish': {
      const usage = toModelUsage(part.totalUsage);
      // A call that ran read a prompt: no input and no output counted is a provider that reported nothing.
      const missing = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens === 0;
      return {
        type: 'finish',
        reason: finishReason(part.finishReason),
        usage,
        ...(missing ? { usageMissing: true } : {}),
      };
    }
    case 'abort':
      throw modelCancelled(label);
    case 'error':
      throw modelError(part.error, label, isAborted(signal));
    default:
      return undefined;
  }
}

function finishReason(reason: string): ModelFinishReason {
  return reason === 'stop' || reason === 'tool-calls' || reason === 'length' || reason === 'content-filter'
    ? reason
    : 'other';
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
