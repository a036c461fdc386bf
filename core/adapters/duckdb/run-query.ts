/**
 * Runs one validated query inside a query process, on the process's one connection: search_path
 * set to the scope when it changes (by this setup path, never by the caller's text), prepared, refused
 * unless the engine reports a SELECT, params bound with inferred types, the result streamed chunk by
 * chunk and read only up to the row cap and the byte cap. The time limit is the parent's: it sends
 * an interrupt (see `interrupt`) and kills the process when the engine does not stop.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection), § Errors, § Limits.
 */
import { Buffer } from 'node:buffer';
import {
  type DuckDBConnection,
  type DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBResult,
  StatementType,
} from '@duckdb/node-api';
import { isPlatformError, PlatformError } from '../../ports/platform-error.ts';
import type { EngineTiming, QueryResult } from '../../ports/query-engine.ts';
import { bindParameters, CastStatements } from './bind-parameters.ts';
import { jsonConverter } from './json-values.ts';
import { PreparedStatements } from './prepared-statements.ts';
import { withRowsText } from './query-protocol.ts';
import { engineMemoryLimitMiB } from './query-instance.ts';
import { engineMessage, quoteIdentifier, quoteLiteral } from './sql-text.ts';

/**
 * What {@link runQuery} needs of a request.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryToRun {
  scope: string;
  /** search_path of the query (`catalog.schema`); default: the scope's schema. */
  searchPath?: string;
  sql: string;
  params: readonly string[];
  maxRows: number;
  maxBytes: number;
}

/**
 * A running query: `interrupt` asks the engine to stop it (the result then rejects).
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface RunningQuery {
  result: Promise<QueryResult>;
  interrupt(): void;
}

/**
 * The one connection of a query process and the scope its search_path names now. A query process
 * runs one query at a time, so every query reuses it and search_path is set only when the scope
 * changes (set by this setup path, never by the caller's text).
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection)
 */
export interface QuerySession {
  connection: DuckDBConnection;
  /** The search_path set now (the scope's schema, or the request's searchPath). */
  scope?: string;
  /** The connection's prepared param conversions (freed when the scope changes). */
  casts: CastStatements;
  /** The connection's prepared queries, by search_path and SQL text (freed when the scope changes). */
  statements: PreparedStatements;
}

/**
 * Opens the session of a query process on `instance`.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection)
 */
export async function openQuerySession(instance: DuckDBInstance): Promise<QuerySession> {
  const connection = await instance.connect();
  return { connection, casts: new CastStatements(connection), statements: new PreparedStatements(connection) };
}

/**
 * Starts `query` on the session's connection. `result` carries where its milliseconds went
 * ({@link EngineTiming}: prepare, run, convert).
 * `result` rejects with PlatformError `query_rejected` (the engine reports another statement kind
 * than SELECT: EXPLAIN, DDL, SET, …), `query_invalid_params`, `query_memory_exceeded` (the engine
 * ran out of memory) or `query_failed` with the engine's message.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function runQuery(session: QuerySession, query: QueryToRun): RunningQuery {
  const state: RunState = { stopped: false };
  const result = runSteps(session, query, state);
  return {
    result,
    interrupt() {
      state.stopped = true;
      session.connection.interrupt();
    },
  };
}

interface RunState {
  stopped: boolean;
}

async function runSteps(session: QuerySession, query: QueryToRun, state: RunState): Promise<QueryResult> {
  const { connection } = session;
  const timing: EngineTiming = { prepare: 0, run: 0, convert: 0 };
  const path = query.searchPath ?? quoteIdentifier(query.scope);
  let prepared: DuckDBPreparedStatement | undefined;
  let succeeded = false;
  try {
    const started = performance.now();
    if (session.scope !== path) {
      session.scope = undefined;
      session.casts.clear();
      session.statements.clear();
      await connection.run(`SET search_path = ${quoteLiteral(path)}`);
      session.scope = path;
    }
    // A text run before on this connection reuses its statement (prepared-statements.ts).
    prepared = await session.statements.take(path, query.sql);
    if (prepared.statementType !== StatementType.SELECT) throw notSelect(prepared.statementType);
    await bindParameters(session.casts, prepared, query.params);
    if (state.stopped) throw new Error('INTERRUPT Error: Interrupted!');
    const running = performance.now();
    timing.prepare = running - started;
    const result = await prepared.stream();
    timing.run = performance.now() - running;
    const rows = await readRows(result, query, state, timing);
    succeeded = true;
    return rows;
  } catch (error) {
    if (isPlatformError(error)) throw error;
    const message = engineMessage(error);
    if (/out of memory/i.test(message)) throw memoryExceeded();
    throw new PlatformError('query_failed', message, { status: 400, cause: error });
  } finally {
    if (prepared) session.statements.settle(path, query.sql, prepared, succeeded);
  }
}

/**
 * Reads rows chunk by chunk until a row beyond `maxRows` exists, the next row would pass `maxBytes`
 * of JSON row text, or the result ends. Each column's converter is chosen once from its type; rows
 * beyond a cap are never converted. Adds the engine's time (fetching chunks) to `timing.run` and the
 * conversion's to `timing.convert`.
 */
async function readRows(
  result: DuckDBResult,
  query: QueryToRun,
  state: RunState,
  timing: EngineTiming,
): Promise<QueryResult> {
  const types = result.columnTypes();
  const columns = result.columnNames().map((name, index) => ({ name, type: types[index].toString() }));
  const converters = types.map((type) => jsonConverter(type));
  const rows: unknown[][] = [];
  // Each row's JSON text, written once to count its bytes and kept: the answer carries the rows as this text.
  const texts: string[] = [];
  let bytes = 2; // the brackets of the rows array
  const done = (cut?: 'rows' | 'bytes'): QueryResult => {
    const fields = { columns, truncated: cut !== undefined, ...(cut ? { truncatedBy: cut } : {}), timing };
    return withRowsText(fields, { json: `[${texts.join(',')}]`, count: rows.length }, () => rows);
  };
  for (;;) {
    if (state.stopped) throw new Error('INTERRUPT Error: Interrupted!');
    const fetching = performance.now();
    const chunk = await result.fetchChunk();
    const converting = performance.now();
    timing.run += converting - fetching;
    if (!chunk || chunk.rowCount === 0) return done();
    try {
      const vectors = converters.map((_, column) => chunk.getColumnVector(column));
      for (let index = 0; index < chunk.rowCount; index += 1) {
        if (rows.length === query.maxRows) return done('rows');
        const row = vectors.map((vector, column) => converters[column](vector.getItem(index)));
        const text = JSON.stringify(row);
        const size = Buffer.byteLength(text) + (rows.length > 0 ? 1 : 0);
        if (bytes + size > query.maxBytes) return done('bytes');
        rows.push(row);
        texts.push(text);
        bytes += size;
      }
    } finally {
      timing.convert += performance.now() - converting;
    }
  }
}

function notSelect(type: StatementType): PlatformError {
  const explain = type === StatementType.EXPLAIN || type === StatementType.LOGICAL_PLAN;
  const reason = explain
    ? "EXPLAIN is not available because a plan would show how the model's datasets are built, which their views " +
      'hide. To check a query, run it with LIMIT 1.'
    : `only one read-only SELECT statement can run (the engine reports a ${
      StatementType[type] ?? 'different'
    } statement); send a single SELECT over the model's tables.`;
  return new PlatformError('query_rejected', `Query rejected: ${reason}`, { status: 400 });
}

/**
 * The error of a query that needed more memory than a query may use.
 *
 * Source: spec/semantic-query-service.md § Limits (engine memory)
 */
export function memoryExceeded(): PlatformError {
  return new PlatformError(
    'query_memory_exceeded',
    `Query stopped: it needed more memory than the ${engineMemoryLimitMiB} MiB a query may use. Hold less at once: ` +
      `filter or aggregate earlier, avoid building very large lists or strings, select fewer columns, or add LIMIT, ` +
      `and try again.`,
    { status: 400 },
  );
}
