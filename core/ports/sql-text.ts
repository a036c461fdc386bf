/**
 * Quoting of SQL identifiers and string literals, written once for every SQL dialect the platform
 * writes text in (DuckDB, SQLite, the digest's table names shown to agents): both dialects quote an
 * identifier with double quotes and a literal with single quotes, doubling the quote inside.
 * A pure function, not an interface; it sits beside the ports so that domain modules, adapters and
 * scripts can all share it (as PlatformError does).
 *
 * Source: spec/semantic-query-service.md § What the service does (3); § Tools (quoted table names).
 */

/**
 * `name` as a quoted identifier: `a"b` → `"a""b"`. Safe for any characters, including `-`, `.` and spaces.
 *
 * Source: spec/semantic-query-service.md § Tools
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `text` as a string literal: `it's` → `'it''s'`.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
