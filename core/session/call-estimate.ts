/**
 * The upper bound of a model call's cost that the broker reserves before the call (core/session/spend-reservations.ts):
 * the prompt's tokens counted with gpt-tokenizer's o200k_base encoding, raised by {@link PROMPT_TOKEN_MARGIN} for
 * providers whose tokenizers count more, priced at the dearest input price (plain input or cache write), plus the
 * call's output-token limit at the output price. Output is bounded by the provider (the limit is sent with every
 * call); the prompt bound is an estimate, so a settled call can pass its reservation only by the part of its prompt
 * the margin did not cover.
 *
 * Source: docs/decisions.md D17 § 5 (reserve an upper bound from the prompt and the call's output-token limit).
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  type ModelMessage,
  type ModelToolDefinition,
  type ModelUsage,
  reportedUsage,
} from '../ports/model-provider.ts';

/**
 * Output tokens a call may produce when the workflow sets no `limits.output_tokens_per_call`: 4096 (the common
 * output ceiling of hosted chat models; a long answer is cut with finish reason `length`).
 */
export const DEFAULT_OUTPUT_TOKENS_PER_CALL = 4096;
/** Factor on the o200k_base count of the prompt: other tokenizers (Anthropic, Llama) count up to ~25 % more. */
export const PROMPT_TOKEN_MARGIN = 1.25;
/** Tokens a provider adds per message (role markers) and per request (the reply's priming). */
const PER_MESSAGE = 4;
const PER_REQUEST = 16;

/** The text of one message as a provider tokenizes it (tool calls and results as their JSON). */
function messageText(message: ModelMessage): string {
  if (message.role === 'tool') return JSON.stringify(message.results);
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return `${message.content}${JSON.stringify(message.toolCalls)}`;
  }
  return message.content;
}

/** Tokens of a call's prompt (messages and tool definitions): the o200k_base count, with the margin, rounded up. */
export function promptTokenBound(messages: ModelMessage[], tools: ModelToolDefinition[]): number {
  const counted = messages.reduce((sum, m) => sum + countTokens(messageText(m)) + PER_MESSAGE, PER_REQUEST) +
    (tools.length > 0 ? countTokens(JSON.stringify(tools)) : 0);
  return Math.ceil(counted * PROMPT_TOKEN_MARGIN);
}

/** Tokens of text a model produced (an aborted call's output so far), counted with o200k_base. */
export function outputTokens(text: string, toolCalls: unknown[]): number {
  return countTokens(text) + (toolCalls.length > 0 ? countTokens(JSON.stringify(toolCalls)) : 0);
}

/** A usage of `input` plain input tokens and `output` output tokens. */
export const usageOf = (input: number, output: number, cacheWrite = 0): ModelUsage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: cacheWrite,
});

/**
 * The upper bound in USD of a call with `promptTokens` and `maxOutputTokens`, under `price` (the configured cost of a
 * usage on the call's model): the dearer of the prompt as plain input or as a cache write.
 */
export function callCostBound(
  price: (usage: ModelUsage) => number,
  promptTokens: number,
  maxOutputTokens: number,
): number {
  return Math.max(price(usageOf(promptTokens, maxOutputTokens)), price(usageOf(0, maxOutputTokens, promptTokens)));
}

/** Whether a model has prices at all (a million input and output tokens cost something). */
export function hasPrices(price: (usage: ModelUsage) => number): boolean {
  return price(usageOf(1_000_000, 1_000_000)) > 0;
}

/**
 * The usage a failed call is charged for: what the provider reported before failing; without a report, a call that
 * had already streamed output (aborted or cut off mid-stream: the provider bills it) is charged its prompt bound plus
 * the output received; one that failed before any output (unreachable, refused) is charged nothing (undefined).
 * Shared by the broker's model calls (./metered-call.ts) and the judges' (core/evaluation/judge-call.ts).
 */
export function failedCallUsage(
  error: unknown,
  promptTokens: number,
  streamed: { text: string; toolCalls: unknown[] },
): ModelUsage | undefined {
  const output = streamed.text !== '' || streamed.toolCalls.length > 0;
  return reportedUsage(error) ?? (output ? receivedUsage(promptTokens, streamed) : undefined);
}

/** The usage a finished call is charged for, and whether it is an estimate. */
export interface ChargedUsage {
  usage: ModelUsage;
  /** True when the provider reported none and the usage is the prompt bound plus the output received. */
  estimated: boolean;
}

/**
 * The usage a call that finished is charged for: the provider's; when it reported none (`usageMissing`), the
 * prompt bound plus the output received (counted with o200k_base), marked as an estimate, so a provider that
 * reports no usage is never free. Shared by the broker's model calls (./metered-call.ts) and the judges'
 * (core/evaluation/judge-call.ts).
 *
 * Source: docs/decisions.md D17 § 5; issue "Hardening, round 3" § 5 (a provider that reports no usage is free).
 */
export function finishedCallUsage(
  finish: { usage: ModelUsage; usageMissing?: true },
  promptTokens: number,
  streamed: { text: string; toolCalls: unknown[] },
): ChargedUsage {
  if (finish.usageMissing !== true) return { usage: finish.usage, estimated: false };
  return { usage: receivedUsage(promptTokens, streamed), estimated: true };
}

/** The estimate of a call the provider did not report: its prompt bound plus the output received. */
const receivedUsage = (promptTokens: number, streamed: { text: string; toolCalls: unknown[] }): ModelUsage =>
  usageOf(promptTokens, outputTokens(streamed.text, streamed.toolCalls));
