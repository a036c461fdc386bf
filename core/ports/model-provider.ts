/**
 * ModelProvider port: one model call, streamed. The broker side of a worker calls it; the adapter
 * (core/adapters/models) speaks to an OpenAI-compatible, Anthropic or Bedrock endpoint through the `ai` package.
 *
 * Failures are PlatformErrors with one of the codes of {@link MODEL_ERROR_CODES}.
 *
 * Source: docs/architecture.md § Ports and adapters (ModelProvider); spec/platform-service.md § Config sections named;
 * § Environment variables (PLATFORM_PROMPT_CACHE, PLATFORM_PROMPT_CACHE_TTL).
 */

/** A tool call the model asked for. `input` is the parsed JSON of its arguments. */
export interface ModelToolCall {
  /** The provider's id of the call; a tool result answers it by this id. */
  id: string;
  name: string;
  input: unknown;
}

/** The result of a tool call, sent back to the model in a later request. */
export interface ModelToolResult {
  /** {@link ModelToolCall.id} of the call it answers. */
  callId: string;
  /** The tool's name, as in the call. */
  name: string;
  /** A JSON value (a string is sent as text). */
  output: unknown;
  /** True when the tool failed; `output` then describes the failure. Default false. */
  isError?: boolean;
}

/**
 * One message of the conversation, oldest first. A `tool` message answers the tool calls of the assistant
 * message before it.
 */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; results: ModelToolResult[] };

/** A tool the model may call. */
export interface ModelToolDefinition {
  /** Letters, digits, `_` and `-` (what every provider accepts). */
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset providers accept) of the tool's input object. */
  inputSchema: Record<string, unknown>;
}

/**
 * Prompt caching of one call. Source: spec/platform-service.md § Environment variables (PLATFORM_PROMPT_CACHE,
 * PLATFORM_PROMPT_CACHE_TTL)
 */
export interface PromptCacheSetting {
  /** PLATFORM_PROMPT_CACHE (default on). */
  enabled: boolean;
  /** PLATFORM_PROMPT_CACHE_TTL (default `5m`). */
  ttl: '5m' | '1h';
}

/** One model call. */
export interface ModelRequest {
  /**
   * A model id offered by the config's `models.offered` (what a workflow or state names); absent: `models.default`,
   * else the first offered model.
   */
  model?: string;
  messages: ModelMessage[];
  /** Tools the model may call; none when absent. */
  tools?: ModelToolDefinition[];
  promptCache: PromptCacheSetting;
  /** Upper bound of output tokens; the provider's default when absent. */
  maxOutputTokens?: number;
  /** Aborting it aborts the HTTP request; the stream then fails with `model_cancelled`. */
  signal?: AbortSignal;
}

/**
 * Tokens of one call. The four counts are disjoint, so a cost is the sum of each count times its price.
 * Counts a provider does not report are 0.
 */
export interface ModelUsage {
  /** Input tokens neither read from nor written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens: number;
}

/** Why the model stopped: it answered, it wants tool results, or it hit the output bound. */
export type ModelFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

/** What a call yields, in order: text deltas and tool calls as they arrive, then exactly one `finish`. */
export type ModelEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; call: ModelToolCall }
  | {
    type: 'finish';
    reason: ModelFinishReason;
    usage: ModelUsage;
    /**
     * True when the provider reported no usage for a call that ran (its counts are then 0): the caller charges an
     * estimate instead (core/session/call-estimate.ts `finishedCallUsage`). Absent: the counts are the provider's.
     */
    usageMissing?: true;
  };

/**
 * Error codes a model call fails with (PlatformError.code):
 * - `model_not_configured`: no models section, or the model id is not offered; the message names the variables
 *   (CAIRN_MODEL_PROVIDER, CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY, CAIRN_MODEL) or config keys to set.
 * - `model_unavailable`: the provider could not be reached, was rate limited (429) or failed (5xx); retry later.
 * - `model_refused`: the provider refused the request (401/403: check the key; other 4xx: the request).
 * - `model_cancelled`: the request's signal was aborted.
 */
export const MODEL_ERROR_CODES = [
  'model_not_configured',
  'model_unavailable',
  'model_refused',
  'model_cancelled',
] as const;

/**
 * The usage a provider reported for a call that then failed (the provider bills it): a model call's PlatformError
 * carries it as `usage` when the stream had reported it before failing; undefined otherwise.
 *
 * Source: docs/decisions.md D17 § 5 (charge usage of failed and aborted calls when the provider reports it)
 */
export function reportedUsage(error: unknown): ModelUsage | undefined {
  const usage = (error as { usage?: ModelUsage } | null)?.usage;
  return typeof usage === 'object' && usage !== null && typeof usage.inputTokens === 'number' ? usage : undefined;
}

/** Makes model calls. Source: docs/architecture.md § Ports and adapters (ModelProvider) */
export interface ModelProvider {
  /**
   * Streams one model call.
   * @throws PlatformError (while iterating) with a code of {@link MODEL_ERROR_CODES}; never a secret in the message;
   *   carrying the usage the provider reported before failing, if any ({@link reportedUsage})
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
