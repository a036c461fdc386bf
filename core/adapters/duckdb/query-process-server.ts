/**
 * The child side of a query process: holds one query instance over one data database (opened on
 * the first `open` message), materialises scopes on its setup path only when their digest is new,
 * runs one query at a time and answers over the pipe. It receives no secrets and no store
 * connection: only the data database path and the requests. It ends when its input ends.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection), § Limits.
 */
import type { Readable, Writable } from 'node:stream';
import type { DuckDBInstance } from '@duckdb/node-api';
import { isPlatformError } from '../../ports/platform-error.ts';
import { createScopeViews, type ScopeViews } from './materialise-views.ts';
import { openQueryInstance } from './query-instance.ts';
import {
  type ChildMessage,
  type ExecuteMessage,
  type ParentMessage,
  readMessages,
  toWire,
  writeMessage,
} from './query-protocol.ts';
import { openQuerySession, type QuerySession, type RunningQuery, runQuery } from './run-query.ts';
import { engineMessage } from './sql-text.ts';

interface ServerState {
  instance?: DuckDBInstance;
  session?: QuerySession;
  scopes?: ScopeViews;
  running?: { id: number; query?: RunningQuery; interrupted: boolean };
}

/**
 * Serves the protocol of query-protocol.ts on `input` / `output` until `input` ends; then closes the
 * idle instance and resolves (at once when a query is running: the caller then exits). Messages
 * arriving before `open` has finished are answered after it.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function serveQueryProcess(input: Readable, output: Writable): Promise<void> {
  const state: ServerState = {};
  const send = (message: ChildMessage): void => writeMessage(output, message);
  let queue: Promise<void> = Promise.resolve();
  return new Promise((resolve) => {
    readMessages<ParentMessage>(
      input,
      (message) => {
        if (message.type === 'interrupt') return interrupt(state, message.id);
        queue = queue.then(() => handle(state, message, send));
      },
      () => {
        // The parent is gone or closing: a running query is interrupted and not waited for (the
        // caller exits); an idle instance is closed first.
        if (state.running) {
          interrupt(state, state.running.id);
          resolve();
          return;
        }
        void queue.then(() => {
          state.session?.statements.clear();
          state.session?.connection.closeSync();
          state.instance?.closeSync();
          resolve();
        });
      },
    );
  });
}

async function handle(
  state: ServerState,
  message: ParentMessage,
  send: (message: ChildMessage) => void,
): Promise<void> {
  if (message.type === 'open') {
    try {
      state.instance = await openQueryInstance(message.databaseFile, message.spillDirectory);
      state.scopes = createScopeViews(state.instance);
      state.session = await openQuerySession(state.instance);
      send({ type: 'ready' });
    } catch (error) {
      send({ type: 'open_failed', message: engineMessage(error) });
    }
    return;
  }
  if (message.type === 'execute') await execute(state, message, send);
}

async function execute(
  state: ServerState,
  message: ExecuteMessage,
  send: (message: ChildMessage) => void,
): Promise<void> {
  const { session, scopes } = state;
  if (!session || !scopes) {
    send({
      type: 'error',
      id: message.id,
      code: 'query_failed',
      message: 'The query process has no open data database.',
      status: 500,
    });
    return;
  }
  const running: NonNullable<ServerState['running']> = { id: message.id, interrupted: false };
  state.running = running;
  try {
    await scopes.ensure(message.scope, message.views);
    if (running.interrupted) throw new Error('INTERRUPT Error: Interrupted!');
    running.query = runQuery(session, message);
    send({ type: 'result', id: message.id, result: toWire(await running.query.result) });
  } catch (error) {
    const wire = isPlatformError(error)
      ? { code: error.code, message: error.message, status: error.status }
      : { code: 'query_failed', message: engineMessage(error), status: 400 };
    send({ type: 'error', id: message.id, ...wire });
  } finally {
    state.running = undefined;
  }
}

function interrupt(state: ServerState, id: number): void {
  const running = state.running;
  if (!running || running.id !== id) return;
  running.interrupted = true;
  running.query?.interrupt();
}
