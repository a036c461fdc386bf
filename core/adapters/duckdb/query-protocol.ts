/**
 * The wire between semantic-mcp and its query processes: one JSON message per line (UTF-8, `\n`
 * ends a message; JSON.stringify never emits a raw line break) over the child's stdin and stdout.
 * Runtime-neutral: plain pipes, no runtime-specific IPC.
 *
 * Parent → child: `open` once, then `execute` one at a time, `interrupt` for the running one.
 * Child → parent: `ready` or `open_failed` after `open`; `result` or `error` per `execute`.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection), § Limits.
 */
import type { Writable } from 'node:stream';
import type { ExecuteRequest, QueryResult, RowsText } from '../../ports/query-engine.ts';

// The line reader lives in core/adapters/runtime (shared with the worker channel).
export { readMessages } from '../runtime/json-lines.ts';

/**
 * Opens the child's query instance over the data database at `databaseFile` (built by the parent),
 * spilling to `spillDirectory`.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface OpenMessage {
  type: 'open';
  databaseFile: string;
  spillDirectory: string;
}

/**
 * Runs one query (the request's fields but the data set, which the child opened, and the timeout,
 * which the parent keeps): the views are materialised unless `scope` is current in this child.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface ExecuteMessage extends Omit<ExecuteRequest, 'data' | 'timeoutMs' | 'caller' | 'signal'> {
  type: 'execute';
  /** Request number, echoed in the answer. */
  id: number;
  /**
   * The search_path of the query (e.g. `data.main`, the scope file's tables) instead of the scope's schema of
   * views: bare names then bind to tables, not to views over them (binding a view doubled the prepare time).
   */
  searchPath?: string;
}

/** Asks the child to interrupt request `id` (ignored when it is no longer running). */
export interface InterruptMessage {
  type: 'interrupt';
  id: number;
}

/** A message to a query process. */
export type ParentMessage = OpenMessage | ExecuteMessage | InterruptMessage;

/** An error as it crosses the pipe: a PlatformError's code, message and HTTP status. */
export interface WireError {
  code: string;
  message: string;
  status?: number;
}

/**
 * A result as it crosses the pipe: the rows as the JSON text the child wrote while counting their bytes, never as
 * values (the parent would parse them and the tool write them again).
 */
export interface WireResult extends Omit<QueryResult, 'rows' | 'rowsText'> {
  rowsText: RowsText;
}

/** A message from a query process. */
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'open_failed'; message: string }
  | { type: 'result'; id: number; result: WireResult }
  | ({ type: 'error'; id: number } & WireError);

/**
 * Writes `message` as one line.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function writeMessage(output: Writable, message: ParentMessage | ChildMessage): void {
  output.write(`${JSON.stringify(message)}\n`);
}

/**
 * The wire form of `result` (its `rowsText`, written from its rows when it has none).
 *
 * Source: docs/decisions.md D18 (fixed costs of the query path)
 */
export function toWire(result: QueryResult): WireResult {
  const { columns, truncated, truncatedBy, timing } = result;
  const rowsText = result.rowsText ?? { json: JSON.stringify(result.rows), count: result.rows.length };
  return { columns, truncated, ...(truncatedBy ? { truncatedBy } : {}), ...(timing ? { timing } : {}), rowsText };
}

/**
 * The QueryResult of a wire result: `rows` parsed from the text on first read only (a tool sending the text as it is
 * never parses it), `rowsText` kept (not enumerable).
 *
 * Source: docs/decisions.md D18 (fixed costs of the query path)
 */
export function fromWire(wire: WireResult): QueryResult {
  const { rowsText, ...rest } = wire;
  return withRowsText(rest, rowsText, () => JSON.parse(rowsText.json) as unknown[][]);
}

/**
 * `fields` as a QueryResult whose `rows` come from `rows()` on first read (and may be replaced, which drops the text)
 * and whose `rowsText` is `text`, not enumerable.
 */
export function withRowsText(
  fields: Omit<QueryResult, 'rows' | 'rowsText'>,
  text: RowsText,
  rows: () => unknown[][],
): QueryResult {
  const result = { ...fields } as QueryResult;
  let values: unknown[][] | undefined;
  Object.defineProperty(result, 'rows', {
    enumerable: true,
    configurable: true,
    get: () => (values ??= rows()),
    set: (changed: unknown[][]) => {
      values = changed;
      Object.defineProperty(result, 'rowsText', { value: undefined });
    },
  });
  Object.defineProperty(result, 'rowsText', { value: text, enumerable: false, configurable: true, writable: true });
  return result;
}
