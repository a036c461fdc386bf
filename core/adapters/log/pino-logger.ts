/**
 * Logger port on pino: JSON lines to stdout, or readable lines (pino-pretty as an in-process stream, coloured) when
 * stdout is a terminal; no transports (they fail inside compiled executables). Secret-bearing keys are redacted at
 * the logger, before either form. A line written while a span is active carries its `trace_id` and `span_id`, so
 * logs join traces (docs/decisions.md D25 § 1).
 *
 * Source: docs/architecture.md § Processes (logs).
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';
import pinoPretty from 'pino-pretty';
import type { Logger } from '../../ports/logger.ts';
import { readableOptions } from './readable-lines.ts';

/** Keys whose values never reach a log line. */
export const redactedPaths = [
  'token',
  'authorization',
  'password',
  '*.token',
  '*.authorization',
  '*.password',
  'headers.authorization',
  'req.headers.authorization',
];

/**
 * `trace_id` and `span_id` of the active span (OpenTelemetry's log correlation fields), or nothing when no valid
 * span context is active (no SDK started, or outside any span).
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (context === undefined || !isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

/**
 * A logger writing to stdout, tagged with `name` (e.g. `semantic-mcp`): JSON lines, or readable ones when `readable`
 * (default: whether stdout is a terminal).
 * @param options.destination - where JSON lines go instead of stdout (tests)
 */
export function createPinoLogger(
  options: { name: string; level?: string; readable?: boolean; destination?: pino.DestinationStream },
): Logger {
  const redact = { paths: redactedPaths, censor: '[redacted]' };
  const settings = { name: options.name, level: options.level ?? 'info', redact, mixin: traceFields };
  if (options.destination) return wrap(pino(settings, options.destination));
  if (!(options.readable ?? process.stdout.isTTY === true)) return wrap(pino(settings));
  return wrap(pino(settings, pinoPretty({ ...readableOptions, colorize: true, sync: true, destination: 1 })));
}

function wrap(base: pino.Logger): Logger {
  return {
    info: (fields, message) => base.info(fields, message),
    warn: (fields, message) => base.warn(fields, message),
    error: (fields, message) => base.error(fields, message),
    child: (fields) => wrap(base.child(fields)),
  };
}
