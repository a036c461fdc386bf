/**
 * A query whose caller has gone stops, against real DuckDB in real query processes (docs/decisions.md D18 § 2): a
 * running runaway query is interrupted when its request's signal aborts (answered `query_cancelled`,
 * logged, its process free for the next query long before the query's own deadline), and a query
 * waiting for a process leaves the queue. The shares hold at the engine's edge: one project's
 * runaway queries leave another project's query a process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSet, ExecuteRequest, QueryEngine } from '../../ports/query-engine.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createDuckDbQueryEngine } from './index.ts';
import {
  dataSetOf,
  failure,
  recordingLogger,
  temporaryDirectory,
  testQueryProcess,
  writeDataFiles,
} from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let engine: QueryEngine;
let data: DataSet;
const store = createMemoryObjectStore();
const logger = recordingLogger();

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-cancel-');
  const files = await writeDataFiles(directory.path, { 'numbers.csv': 'SELECT range AS n FROM range(100)' });
  data = await dataSetOf(store, files);
  engine = createDuckDbQueryEngine({
    objectStore: store,
    cacheDir: `${directory.path}/cache`,
    logger,
    queryProcess: testQueryProcess,
    maxProcesses: 2,
  });
});

afterAll(async () => {
  await engine?.close();
  await directory.remove();
});

/** A cross join of 10^12 rows: runs far past any deadline of these tests, and honours the interrupt. */
const runaway = 'SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1';

function request(sql: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return {
    data,
    scope: '_scope_numbers_000000000000',
    views: [{ name: 'numbers', sql: 'SELECT * FROM data.numbers' }],
    sql,
    params: [],
    maxRows: 1000,
    maxBytes: 4 * 1024 * 1024,
    timeoutMs: 600_000,
    ...overrides,
  };
}

const logged = (message: string) => logger.lines.filter((line) => line.message === message);
const waitUntil = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
};
/** Resolves once a query process has taken a query (its child answered ready and the engine sent the query). */
const running = (count: number) => waitUntil(() => logged('query process ready').length >= count);

describe('a query whose caller has gone', () => {
  it('is interrupted while running: query_cancelled, logged, and its process takes the next query', async () => {
    const gone = new AbortController();
    const caller = { projectId: 'project-a', tokenId: 'token-a' };
    const outcome = failure(engine.execute(request(runaway, { caller, signal: gone.signal })));
    await running(1);
    gone.abort();
    const error = await outcome;
    expect(error.code).toBe('query_cancelled');
    expect(error.message).toBe(
      'Query cancelled: its client went away before the answer, so it was stopped. ' +
        'Send it again if you still need the answer.',
    );
    const line = logged('query cancelled while running: its caller went away; interrupted')[0];
    expect(line.fields).toMatchObject(caller);
    // The same caller's next query answers: its 10-minute runaway was stopped, not left to its deadline.
    const next = await engine.execute(request('SELECT count(*) FROM numbers', { caller }));
    expect(next.rows).toEqual([[100]]);
    expect(logged('query process killed').filter((l) => l.fields.reason === 'timeout')).toEqual([]);
  });

  it('leaves the queue while waiting, and the shares keep a process for another project', async () => {
    const busy = { projectId: 'busy', tokenId: 'busy-token' };
    const gone = new AbortController();
    // maxProcesses 2: the busy project may run one query at once (processes − 1); its second waits.
    const first = failure(engine.execute(request(runaway, { caller: busy, signal: gone.signal })));
    const second = failure(engine.execute(request(runaway, { caller: busy, signal: gone.signal })));
    const other = { projectId: 'quiet', tokenId: 't' };
    const quiet = await engine.execute(request('SELECT max(n) FROM numbers', { caller: other }));
    expect(quiet.rows).toEqual([[99]]);
    gone.abort();
    expect([(await first).code, (await second).code]).toEqual(['query_cancelled', 'query_cancelled']);
    const dequeued = logged('query cancelled while waiting for a query process');
    expect(dequeued.map((line) => line.fields.projectId)).toEqual(['busy']);
  });
});
