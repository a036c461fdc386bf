/**
 * Logger port on pino: JSON lines to stdout, or readable lines (pino-pretty as an in-process stream, coloured) when
 * stdout is a terminal; no transports (they fail inside compiled executables). Secret-bearing keys are redacted at
 * the logger, before either form.
 *
 * Source: docs/architecture.md § Processes (logs).
 */
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
 * A logger writing to stdout, tagged with `name` (e.g. `semantic-mcp`): JSON lines, or readable ones when `readable`
 * (default: whether stdout is a terminal).
 */
export function createPinoLogger(options: { name: string; level?: string; readable?: boolean }): Logger {
  const redact = { paths: redactedPaths, censor: '[redacted]' };
  const settings = { name: options.name, level: options.level ?? 'info', redact };
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
