/**
 * Runs one validated query on a fresh connection of a query instance: search_path set to the
 * scope, prepared, params bound with inferred types, the result streamed chunk by chunk and read
 * only up to maxRows + 1 rows. A timer interrupts the connection after timeoutMs.
 *
 * Source: ../shared/spec/semantic-query-service.md § Query validation (engine connection), § Errors, § Limits.
 */
import { StatementType, type DuckDBConnection, type DuckDBInstance, type DuckDBResult } from '@duckdb/node-api';
import { isPlatformError, PlatformError } from '../../ports/platform-error.ts';
import type { ExecuteRequest, QueryResult } from '../../ports/query-engine.ts';
import { bindParameters } from './bind-parameters.ts';
import { toJsonValue } from './json-values.ts';
import { engineMessage, quoteIdentifier, quoteLiteral } from './sql-text.ts';

/**
 * A started query: `result` settles by the deadline; `finished` once the engine has let go.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface StartedQuery {
  result: Promise<QueryResult>;
  finished: Promise<void>;
}

/**
 * Starts `request` on `instance`. `prepareLocked` wraps the steps that must see one consistent view
 * set: the caller materialises the views inside it, then search_path, prepare, bind and the start of
 * execution (binding happens there) run before the lock is released; rows are read outside it.
 * `result` rejects with PlatformError `query_timeout` after `timeoutMs` (the connection is
 * interrupted), `query_failed` with the engine's message, `query_invalid_params`, or the
 * materialisation error; `finished` never rejects.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function startQuery(
  instance: DuckDBInstance,
  request: ExecuteRequest,
  prepareLocked: <T>(steps: () => Promise<T>) => Promise<T>,
): StartedQuery {
  const state = { stopped: false, connection: undefined as DuckDBConnection | undefined };
  const work = runSteps(instance, request, prepareLocked, state);
  const finished = work.then(() => undefined, () => undefined).finally(() => state.connection?.closeSync());
  const result = withDeadline(work, request.timeoutMs, () => {
    state.stopped = true;
    state.connection?.interrupt();
  });
  return { result, finished };
}

interface RunState {
  stopped: boolean;
  connection: DuckDBConnection | undefined;
}

async function runSteps(
  instance: DuckDBInstance,
  request: ExecuteRequest,
  prepareLocked: <T>(steps: () => Promise<T>) => Promise<T>,
  state: RunState,
): Promise<QueryResult> {
  const connection = await instance.connect();
  state.connection = connection;
  try {
    const pending = await prepareLocked(async () => {
      if (state.stopped) throw new Error('stopped');
      await connection.run(`SET search_path = ${quoteLiteral(quoteIdentifier(request.scope))}`);
      const prepared = await connection.prepare(request.sql);
      if (prepared.statementType !== StatementType.SELECT && prepared.statementType !== StatementType.EXPLAIN) {
        throw new PlatformError('query_failed', 'Only read-only SELECT, EXPLAIN and DESCRIBE statements can run.', { status: 400 });
      }
      await bindParameters(connection, prepared, request.params);
      return prepared.startStream();
    });
    if (state.stopped) throw new Error('stopped');
    return await readRows(await pending.getResult(), request.maxRows, state);
  } catch (error) {
    if (isPlatformError(error)) throw error;
    throw new PlatformError('query_failed', engineMessage(error), { status: 400, cause: error });
  }
}

/** Reads rows chunk by chunk until `maxRows + 1` rows are seen or the result ends. */
async function readRows(result: DuckDBResult, maxRows: number, state: RunState): Promise<QueryResult> {
  const types = result.columnTypes();
  const columns = result.columnNames().map((name, index) => ({ name, type: types[index].toString() }));
  const rows: unknown[][] = [];
  for (;;) {
    if (state.stopped) throw new Error('stopped');
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return { columns, rows, truncated: false };
    const take = Math.min(chunk.rowCount, maxRows + 1 - rows.length);
    for (let row = 0; row < take; row += 1) {
      rows.push(chunk.getRowValues(row).map((value, column) => toJsonValue(value, types[column])));
    }
    if (rows.length > maxRows) return { columns, rows: rows.slice(0, maxRows), truncated: true };
  }
}

/**
 * `work`'s outcome, or PlatformError `query_timeout` once `timeoutMs` passes (after `onTimeout`).
 */
function withDeadline<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      onTimeout();
      reject(timeoutError(timeoutMs));
    }, timeoutMs);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function timeoutError(timeoutMs: number): PlatformError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new PlatformError(
    'query_timeout',
    `Query timed out after ${seconds} s and was stopped; narrow the query (filter rows, aggregate, or add LIMIT) and try again.`,
    { status: 408 },
  );
}
