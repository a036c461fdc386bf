/**
 * The engine's own parser for query validation: DuckDB's json_serialize_sql on a dedicated
 * in-memory instance that can reach no file, with the SQL bound as a parameter (never spliced).
 *
 * Source: ../shared/spec/semantic-query-service.md § Query validation.
 */
import { DuckDBInstance, VARCHAR } from '@duckdb/node-api';
import type { ParseOutcome } from '../../ports/query-engine.ts';

/**
 * A parser on its own DuckDB instance.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface DuckDbParser {
  /**
   * Parses `sql` with `json_serialize_sql`.
   * @returns `{ ok: true, statements }` (the `statements` array) or `{ ok: false, message }` with the
   *   parser's `error_message` verbatim
   */
  parse(sql: string): Promise<ParseOutcome>;
  /** Frees the instance; a later parse opens a new one. */
  close(): void;
}

interface SerialisedSql {
  error: boolean;
  statements?: unknown[];
  error_message?: string;
}

/**
 * Creates a parser. The instance is opened on first use (one thread, external access disabled).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function createDuckDbParser(): DuckDbParser {
  let instance: Promise<DuckDBInstance> | undefined;
  const open = (): Promise<DuckDBInstance> => {
    instance ??= DuckDBInstance.create(':memory:', {
      threads: '1',
      enable_external_access: 'false',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    }).catch((error: unknown) => {
      instance = undefined;
      throw error;
    });
    return instance;
  };
  return {
    async parse(sql) {
      const connection = await (await open()).connect();
      try {
        const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql], [VARCHAR]);
        const serialised = JSON.parse(String(reader.getRows()[0][0])) as SerialisedSql;
        if (serialised.error) return { ok: false, message: serialised.error_message ?? 'the parser gave no message' };
        return { ok: true, statements: serialised.statements ?? [] };
      } finally {
        connection.closeSync();
      }
    },
    close() {
      const current = instance;
      instance = undefined;
      void current?.then((db) => db.closeSync());
    },
  };
}
