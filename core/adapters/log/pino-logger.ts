/**
 * Logger port on pino: JSON lines to stdout (no transports: they fail inside compiled executables).
 * Secret-bearing keys are redacted at the logger.
 *
 * Source: ../shared/ARCHITECTURE.md § Conventions (logs).
 */
import pino from 'pino';
import type { Logger } from '../../ports/logger.ts';

/** Keys whose values never reach a log line. */
export const redactedPaths = ['token', 'authorization', 'password', '*.token', '*.authorization', '*.password', 'headers.authorization', 'req.headers.authorization'];

/** A logger writing JSON lines to stdout, tagged with `name` (e.g. `semantic-mcp`). */
export function createPinoLogger(options: { name: string; level?: string }): Logger {
  return wrap(pino({ name: options.name, level: options.level ?? 'info', redact: { paths: redactedPaths, censor: '[redacted]' } }));
}

function wrap(base: pino.Logger): Logger {
  return {
    info: (fields, message) => base.info(fields, message),
    warn: (fields, message) => base.warn(fields, message),
    error: (fields, message) => base.error(fields, message),
    child: (fields) => wrap(base.child(fields)),
  };
}
