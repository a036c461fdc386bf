/**
 * Log lines for a person at a terminal: a pino JSON line becomes one readable line (time, level, process name,
 * message, then the other fields) through pino-pretty's own formatter; any other line stays as it is. Used when
 * standard output is a terminal (a process started by hand, or the all-in-one supervisor relaying its children's
 * JSON lines); JSON stays JSON otherwise, for log collectors. pino-pretty runs in-process (never as a pino transport,
 * which fails inside compiled executables).
 *
 * Source: docs/architecture.md § Processes (logs).
 */
import { prettyFactory, type PrettyOptions } from 'pino-pretty';

/** pino-pretty's options for one line: local time to the millisecond, no pid or host name. */
export const readableOptions: PrettyOptions = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname',
  singleLine: true,
};

const formatters = new Map<boolean, (value: unknown) => string>();

/** Whether `line` looks like one of pino's JSON lines (an object with a numeric level and time). */
function pinoRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{"level":')) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    if (
      value && typeof value === 'object' && typeof (value as { level?: unknown }).level === 'number' &&
      typeof (value as { time?: unknown }).time === 'number'
    ) return value as Record<string, unknown>;
  } catch { /* not JSON after all */ }
  return undefined;
}

/**
 * `line` readable: a pino JSON line formatted by pino-pretty (with ANSI colours when `colorize`), without its
 * trailing newline; any other line unchanged.
 */
export function readableLogLine(line: string, colorize = false): string {
  const record = pinoRecord(line);
  if (!record) return line;
  let format = formatters.get(colorize);
  if (!format) {
    format = prettyFactory({ ...readableOptions, colorize });
    formatters.set(colorize, format);
  }
  return format(record).replace(/\n$/, '');
}
