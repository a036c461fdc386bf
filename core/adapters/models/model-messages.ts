/**
 * The port's messages and tools in the shapes of the `ai` package, and the `ai` package's usage in the port's.
 *
 * Source: docs/decisions.md D7 § Models.
 */
import {
  jsonSchema,
  type JSONValue,
  type LanguageModelUsage,
  type ModelMessage as AiMessage,
  tool,
  type ToolSet,
} from 'ai';
import type { ModelMessage, ModelToolDefinition, ModelToolResult, ModelUsage } from '../../ports/model-provider.ts';
import type { CacheOptions } from './language-models.ts';

/**
 * Converts the conversation; `breakpoint` (when given) is set on the last system message and on the last message.
 *
 * Source: spec/platform-service.md § Environment variables (PLATFORM_PROMPT_CACHE)
 */
export function toAiMessages(messages: ModelMessage[], breakpoint: CacheOptions | undefined): AiMessage[] {
  const converted = messages.map(toAiMessage);
  if (breakpoint === undefined) return converted;
  const lastSystem = converted.map((m) => m.role).lastIndexOf('system');
  const marks = new Set([lastSystem, converted.length - 1].filter((index) => index >= 0));
  return converted.map((
    message,
    index,
  ) => (marks.has(index) ? { ...message, providerOptions: breakpoint } as AiMessage : message));
}

function toAiMessage(message: ModelMessage): AiMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: call.input,
      }));
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: [...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]), ...calls],
      };
    }
    case 'tool':
      return { role: 'tool', content: message.results.map(toToolResultPart) };
  }
}

function toToolResultPart(result: ModelToolResult) {
  const output = typeof result.output === 'string'
    ? { type: result.isError === true ? 'error-text' as const : 'text' as const, value: result.output }
    : { type: result.isError === true ? 'error-json' as const : 'json' as const, value: asJsonValue(result.output) };
  return { type: 'tool-result' as const, toolCallId: result.callId, toolName: result.name, output };
}

/** A tool's output as the JSON value it is on the wire (a JSON round trip: undefined becomes null, Dates ISO strings).
 */
function asJsonValue(output: unknown): JSONValue {
  return JSON.parse(JSON.stringify(output ?? null)) as JSONValue;
}

/**
 * The tools as an `ai` tool set without `execute`: a tool call ends the call and is handed to the caller.
 *
 * Source: docs/decisions.md D7 § Models
 */
export function toAiTools(tools: ModelToolDefinition[] | undefined): ToolSet | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema) })]),
  );
}

/**
 * The port's disjoint counts from the `ai` package's usage (input = input not read from nor written to the cache).
 *
 * Source: docs/decisions.md D7 § Models (usage: input, output, cache read, cache write)
 */
export function toModelUsage(usage: LanguageModelUsage | undefined): ModelUsage {
  const cacheReadTokens = usage?.inputTokenDetails?.cacheReadTokens ?? 0;
  const cacheWriteTokens = usage?.inputTokenDetails?.cacheWriteTokens ?? 0;
  const noCache = usage?.inputTokenDetails?.noCacheTokens ??
    Math.max(0, (usage?.inputTokens ?? 0) - cacheReadTokens - cacheWriteTokens);
  return { inputTokens: noCache, outputTokens: usage?.outputTokens ?? 0, cacheReadTokens, cacheWriteTokens };
}
