/**
 * The one way cairn's code runs work inside a span and marks a failure on it: a failed span gets status error and
 * `error.type` = the PlatformError's code, or `_OTHER` for anything else; never the error's message, since messages
 * may quote caller text, rows or SQL. Every span that wraps work (queue hops, engine work, validation, MCP calls
 * on both sides, model and tool calls) goes through here. Over `@opentelemetry/api` only: with no SDK registered
 * every call is the API's no-op. Source: docs/decisions.md D25 § 4.
 */
import { type Context, context, type Span, type SpanOptions, SpanStatusCode, trace } from '@opentelemetry/api';
import { isPlatformError } from '../ports/platform-error.ts';
import { attr, cairnTracer } from './names.ts';

/** The `error.type` of a failure: a PlatformError's code, else `_OTHER` (the conventions' fallback value). */
export function errorTypeOf(error: unknown): string {
  return isPlatformError(error) ? error.code : '_OTHER';
}

/** Marks `span` failed with `type` (an error code or `tool_error`), when it records. */
export function markFailed(span: Span, type: string): void {
  if (!span.isRecording()) return;
  span.setAttribute(attr.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `work` inside a new span `name` (a child of `parent`, default the active context) made active for it; a
 * throw marks the span failed ({@link errorTypeOf}) and is rethrown; the span ends when `work` settles.
 * `judge` may mark a failure found in a result (e.g. an MCP tool result with `isError`).
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions & { parent?: Context; judge?(result: T): string | undefined },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const { parent = context.active(), judge, ...spanOptions } = options;
  const span = cairnTracer().startSpan(name, spanOptions, parent);
  try {
    const result = await context.with(trace.setSpan(parent, span), () => work(span));
    const failed = judge?.(result);
    if (failed !== undefined) markFailed(span, failed);
    return result;
  } catch (error) {
    markFailed(span, errorTypeOf(error));
    throw error;
  } finally {
    span.end();
  }
}
