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
import type { ExecuteRequest, QueryResult } from '../../ports/query-engine.ts';

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

/** A message from a query process. */
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'open_failed'; message: string }
  | { type: 'result'; id: number; result: QueryResult }
  | ({ type: 'error'; id: number } & WireError);

/**
 * Writes `message` as one line.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function writeMessage(output: Writable, message: ParentMessage | ChildMessage): void {
  output.write(`${JSON.stringify(message)}\n`);
}
