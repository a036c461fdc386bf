/**
 * Quoting helpers for the few SQL texts the adapter writes itself (identifiers, file paths,
 * settings), and the engine-message helper.
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does (3).
 */

/**
 * `name` as a DuckDB quoted identifier: `"a""b"`. Works for any characters, including `-` and `.`.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `text` as a SQL string literal: `'it''s'`.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The message of an engine error (or the value as text).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function engineMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
