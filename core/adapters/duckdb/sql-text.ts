/**
 * The quoting helpers (one implementation, in core/ports/sql-text.ts) for the few SQL texts the
 * adapter writes itself (identifiers, file paths, settings), and the engine-message helper.
 *
 * Source: spec/semantic-query-service.md § What the service does (3).
 */

export { quoteIdentifier, quoteLiteral } from '../../ports/sql-text.ts';

/**
 * The message of an engine error (or the value as text).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function engineMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
