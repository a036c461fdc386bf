/**
 * Whether spans may carry message content (prompts, completions, tool arguments and results): only when
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true`, as the GenAI semantic conventions' instrumentations
 * do; by default no message text, secret or token reaches a span. The dispatcher's `main.ts` passes the answer into
 * the turn runner's deps. Source: docs/decisions.md D25 § 1.
 */
import type { TelemetryEnv } from './telemetry-types.ts';

/** True only when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true` (any case, spaces ignored). */
export function captureMessageContent(env: TelemetryEnv): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}
