/**
 * The engine's own parser for query validation: DuckDB's json_serialize_sql on a dedicated
 * in-memory instance that can reach no file, with the SQL bound as a parameter (never spliced).
 *
 * Source: spec/semantic-query-service.md § Query validation.
 */
import { type DuckDBConnection, DuckDBInstance, type DuckDBPreparedStatement } from '@duckdb/node-api';
import type { ParseOutcome } from '../../ports/query-engine.ts';

/**
 * A parser on its own DuckDB instance.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface DuckDbParser {
  /**
   * Parses `sql` with `json_serialize_sql`.
   * @param partition - whose parse this is (a project id); a remembered answer serves only its own partition,
   *   so one partition cannot time whether another parsed a text recently (docs/decisions.md D18 § 6); default ''
   * @returns `{ ok: true, statements }` (the `statements` array) or `{ ok: false, message }` with the
   *   parser's `error_message` verbatim
   */
  parse(sql: string, partition?: string): Promise<ParseOutcome>;
  /** Texts sent to the engine so far (the parses no remembered answer served), for tests and the benchmark. */
  engineParses(): number;
  /** Frees the instance; a later parse opens a new one. */
  close(): void;
}

/** Parses remembered at most (oldest dropped first). */
const maxRememberedParses = 256;
/** Longer texts are parsed every time (their trees are large and rarely repeated). */
const maxRememberedSqlChars = 8_192;

interface SerialisedSql {
  error: boolean;
  statements?: unknown[];
  error_message?: string;
}

/**
 * Creates a parser. The instance, one connection and the prepared `json_serialize_sql` statement
 * are made on first use (one thread, external access disabled) and reused by every parse; the
 * engine's answers for the last 256 texts of at most 8,192 characters are remembered, per partition.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function createDuckDbParser(): DuckDbParser {
  let opened: Promise<OpenParser> | undefined;
  const open = (): Promise<OpenParser> => {
    opened ??= openParser().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
  // One connection and one prepared statement serve every parse, one at a time (a prepared
  // statement is not for concurrent use); a parse takes a fraction of a millisecond.
  let queue: Promise<unknown> = Promise.resolve();
  // The engine's answer for recently parsed texts (an agent re-runs, retries and replays the same
  // SQL): parsing is a pure function of the text, so the same text needs no second trip to the engine.
  // Keyed by partition and text: a newline never occurs in a partition (a project id).
  const recent = new Map<string, string>();
  let sentToEngine = 0;
  const remember = (key: string, sql: string, text: string): void => {
    if (sql.length > maxRememberedSqlChars) return;
    recent.set(key, text);
    if (recent.size > maxRememberedParses) recent.delete(recent.keys().next().value as string);
  };
  return {
    async parse(sql, partition = '') {
      const key = `${partition}\n${sql}`;
      let text = recent.get(key);
      if (text === undefined) {
        sentToEngine += 1;
        const parser = await open();
        const turn = queue.then(async () => {
          parser.statement.bindVarchar(1, sql);
          return String((await parser.statement.runAndReadAll()).getRows()[0][0]);
        });
        queue = turn.catch(() => undefined);
        text = await turn;
        remember(key, sql, text);
      }
      // Parsed anew from the engine's text each time: no caller ever shares a tree with another.
      const serialised = JSON.parse(text) as SerialisedSql;
      if (serialised.error) return { ok: false, message: serialised.error_message ?? 'the parser gave no message' };
      return { ok: true, statements: serialised.statements ?? [] };
    },
    engineParses: () => sentToEngine,
    close() {
      const current = opened;
      opened = undefined;
      void current?.then((parser) => {
        parser.statement.destroySync();
        parser.connection.closeSync();
        parser.instance.closeSync();
      });
    },
  };
}

interface OpenParser {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  statement: DuckDBPreparedStatement;
}

/** The parser's instance (one thread, external access disabled), its connection and statement. */
async function openParser(): Promise<OpenParser> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    enable_external_access: 'false',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  const statement = await connection.prepare('SELECT json_serialize_sql($1::VARCHAR)');
  return { instance, connection, statement };
}
