/**
 * The prepared statements of a query process's one connection, kept per SQL text: an agent re-runs, retries and
 * replays the same SQL (execute_stored_query with new params), and a prepare costs as much as a small aggregate's
 * run (about 1 ms of the 4.5 ms fixed cost of a call). A query process holds one data file (one data key) for its
 * whole life, so the statements are keyed by the search_path and the exact SQL text, and all are freed when the
 * search_path changes. Only a statement whose last run succeeded is kept: a failed, refused or interrupted query
 * frees its statement, so the next run of that text prepares it anew.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection); docs/decisions.md D18 (fixed
 * costs of the query path).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/** Statements kept per connection at most (the least recently used is freed first). */
export const maxPreparedStatements = 64;
/** Longer SQL texts are prepared every time (their plans are large and rarely repeated). */
export const maxPreparedSqlChars = 8_192;

/**
 * A bounded least-recently-used set of prepared statements of one connection.
 *
 * Source: docs/decisions.md D18 (fixed costs of the query path)
 */
export class PreparedStatements {
  private readonly byText = new Map<string, DuckDBPreparedStatement>();
  private prepares = 0;

  constructor(private readonly connection: DuckDBConnection) {}

  /**
   * The statement of `sql` under `searchPath`: the kept one (its bindings cleared), else a new prepare. The caller
   * owns it until it calls {@link settle} (a statement is never handed to two runs at once: a query process runs
   * one query at a time).
   * @throws the engine's error when the text does not prepare
   */
  async take(searchPath: string, sql: string): Promise<DuckDBPreparedStatement> {
    const key = `${searchPath}\n${sql}`;
    const kept = this.byText.get(key);
    if (kept) {
      this.byText.delete(key);
      kept.clearBindings();
      return kept;
    }
    this.prepares += 1;
    return this.connection.prepare(sql);
  }

  /**
   * Gives `statement` back after its run: kept for the next run of the same text when `succeeded` and the text is
   * short enough, else freed. Past {@link maxPreparedStatements}, the least recently used is freed.
   */
  settle(searchPath: string, sql: string, statement: DuckDBPreparedStatement, succeeded: boolean): void {
    if (!succeeded || sql.length > maxPreparedSqlChars) {
      statement.destroySync();
      return;
    }
    this.byText.set(`${searchPath}\n${sql}`, statement);
    if (this.byText.size > maxPreparedStatements) {
      const [oldest, statementOut] = this.byText.entries().next().value as [string, DuckDBPreparedStatement];
      this.byText.delete(oldest);
      statementOut.destroySync();
    }
  }

  /** Statements kept now. */
  get size(): number {
    return this.byText.size;
  }

  /** Texts prepared by the engine so far (the takes no kept statement served), for tests and the benchmark. */
  get preparedCount(): number {
    return this.prepares;
  }

  /** Frees every kept statement (the search_path changed, or the connection closes). */
  clear(): void {
    for (const statement of this.byText.values()) statement.destroySync();
    this.byText.clear();
  }
}
