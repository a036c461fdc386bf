/** Structured logger (JSON lines through pino in production). Secrets never go in `fields`. */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /** A logger whose lines carry `fields` too. */
  child(fields: Record<string, unknown>): Logger;
}
