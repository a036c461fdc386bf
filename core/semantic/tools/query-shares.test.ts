/**
 * execute_query hands the engine who runs the query and the request's signal (docs/decisions.md D18 § 2): the engine's
 * fair
 * shares count per project and token, and a query whose client has gone is stopped. A call so stopped is kept in
 * the call log as an error with code `query_cancelled`. The engine is a fake of the query engine port; the real
 * parser validates.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbParser } from '../../adapters/duckdb/parser.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ExecuteRequest, QueryEngine } from '../../ports/query-engine.ts';
import { createMemoryDocumentStore } from '../../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import type { CallLogEntry } from '../call-log-writer.ts';
import type { SemanticDeps } from '../deps.ts';
import type { SemanticModel } from '../model.ts';
import type { AssembledPlane } from '../planes.ts';
import type { ProjectRecord, TokenRecord } from '../records.ts';
import { callTool } from './call-tool.ts';
import type { ToolContext } from './tool-context.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

const deps: SemanticDeps = {
  docs: createMemoryDocumentStore(),
  objects: createMemoryObjectStore(),
  clock: { now: () => new Date('2026-11-26T10:00:00Z') },
  ids: { newId: () => 'id', randomBytes: (n) => new Uint8Array(n), sha256Hex: async () => '0'.repeat(64) },
};
const executed: ExecuteRequest[] = [];
/** The port: the real parser; execute waits until the request's signal aborts, then answers as the engine does. */
const engine: QueryEngine = {
  parse: (sql, partition) => parser.parse(sql, partition),
  execute: (request) => {
    executed.push(request);
    return new Promise((_resolve, reject) =>
      request.signal?.addEventListener('abort', () => {
        reject(new PlatformError('query_cancelled', 'Query cancelled: its client went away.', { status: 499 }));
      })
    );
  },
  close: async () => undefined,
};
const model = {
  name: 'notes_model',
  datasets: [{ name: 'notes', viewQuery: 'SELECT 1 AS id' }],
} as unknown as SemanticModel;
const plane = { plane: 'production', models: [model], problems: [], data: {} } as unknown as AssembledPlane;

describe('execute_query and the fair shares', () => {
  it('passes project, token and signal to the engine; a stopped call is logged as query_cancelled', async () => {
    const logged: CallLogEntry[] = [];
    const client = new AbortController();
    const context: ToolContext = {
      deps,
      engine,
      plane,
      signal: client.signal,
      project: { _id: 'project-1', slug: 'notes' } as ProjectRecord,
      token: { _id: 'token-1', models: ['notes_model'] } as unknown as TokenRecord,
      callLog: {
        record: (entry) => {
          logged.push(entry);
        },
        drain: async () => undefined,
        pendingCount: () => 0,
      },
      improvementLimiter: {
        consume: async () => ({ allowed: true, retryAfterSeconds: 0, remaining: 1, limit: 20 }),
      },
    };
    const outcome = callTool(context, 'execute_query', { modelName: 'notes_model', sql: 'SELECT count(*) FROM notes' });
    while (executed.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const caller = { projectId: 'project-1', tokenId: 'token-1' };
    expect(executed[0]).toMatchObject({ caller, signal: client.signal });
    client.abort();
    expect(await outcome).toMatchObject({ ok: false, code: 'query_cancelled' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ tool: 'execute_query', status: 'error', output: { code: 'query_cancelled' } });
  });
});
