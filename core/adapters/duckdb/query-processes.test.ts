/**
 * Query isolation against real DuckDB in real query processes (bun on bins/semantic-mcp/main.ts):
 * a runaway query is answered with query_timeout while other data keys and later queries of the
 * same key keep answering, and its process is killed and replaced; the memory ceiling holds for
 * values (kernel limit and watchdog); results are capped in bytes; close() leaves no process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSet, ExecuteRequest, QueryEngine } from '../../ports/query-engine.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createDataBuilder } from './data-build.ts';
import { createDuckDbQueryEngine } from './index.ts';
import {
  dataSetOf,
  failure,
  type LogLine,
  recordingLogger,
  temporaryDirectory,
  testQueryProcess,
  writeDataFiles,
} from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let engine: QueryEngine;
let first: DataSet;
let second: DataSet;
const store = createMemoryObjectStore();
const logger = recordingLogger();
const maxBytes = 4 * 1024 * 1024;

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-isolation-');
  first = await dataSetOf(
    store,
    await writeDataFiles(directory.path, { 'first.csv': 'SELECT range AS n FROM range(100)' }),
  );
  second = await dataSetOf(
    store,
    await writeDataFiles(directory.path, { 'second.csv': 'SELECT range AS m FROM range(50)' }),
  );
  engine = createDuckDbQueryEngine({
    objectStore: store,
    cacheDir: `${directory.path}/cache`,
    logger,
    queryProcess: testQueryProcess,
  });
});

afterAll(async () => {
  await engine?.close();
  await directory.remove();
});

function request(data: DataSet, sql: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest {
  const name = data === first ? 'first' : 'second';
  return {
    data,
    scope: `_scope_${name}_000000000000`,
    views: [{ name, sql: `SELECT * FROM data.${name}` }],
    sql,
    params: [],
    maxRows: 1000,
    maxBytes,
    timeoutMs: 30_000,
    ...overrides,
  };
}

const killed = (reason: string, lines: LogLine[] = logger.lines) =>
  lines.filter((line) => line.message === 'query process killed' && line.fields.reason === reason).map((line) =>
    line.fields.pid as number
  );
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const waitUntil = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('a runaway query', () => {
  it(
    'is answered with query_timeout, its process killed and replaced, while other keys and later calls of its key ' +
      'answer',
    async () => {
      const finished: string[] = [];
      const runaway = failure(
        engine.execute(
          request(first, "SELECT levenshtein(repeat('a', 250000), repeat('b', 250000))", { timeoutMs: 3000 }),
        ),
      )
        .finally(() => finished.push('runaway'));
      const other = engine.execute(request(second, 'SELECT count(*) FROM second')).finally(() =>
        finished.push('other key')
      );
      const sameKey = engine.execute(request(first, 'SELECT count(*) FROM first')).finally(() =>
        finished.push('same key')
      );
      expect([(await other).rows, (await sameKey).rows]).toEqual([[[50]], [[100]]]);
      const error = await runaway;
      expect(finished.indexOf('runaway')).toBe(2);
      expect(error.code).toBe('query_timeout');
      expect(error.message).toBe(
        'Query timed out after 3 s and was stopped; narrow the query (filter rows, aggregate, or add LIMIT) and try ' +
          'again.',
      );
      // The levenshtein call does not honour the interrupt: after the grace period its process is killed.
      await waitUntil(() => killed('timeout').length === 1);
      const [pid] = killed('timeout');
      await waitUntil(() => !isAlive(pid));
      expect((await engine.execute(request(first, 'SELECT max(n) FROM first'))).rows).toEqual([[99]]);
    },
  );
});

describe('the memory ceiling', () => {
  it.each([
    ['SELECT len(list_sort(range(100000000)))'],
    ["SELECT length(repeat('x', 1000000000))"],
  ])('stops %s with query_memory_exceeded and replaces the process', async (sql) => {
    const before = killed('memory').length;
    const error = await failure(engine.execute(request(first, sql)));
    expect(error.code).toBe('query_memory_exceeded');
    expect(error.message).toMatch(
      /^Query stopped: it needed more memory than the 512 MiB a query may use\. Hold less at once/,
    );
    expect(killed('memory')).toHaveLength(before + 1);
    expect((await engine.execute(request(first, 'SELECT count(*) FROM first'))).rows).toEqual([[100]]);
  });

  it('holds without the kernel limit too: the resident-set watchdog kills the process past its ceiling', async () => {
    const lines = recordingLogger();
    const watched = createDuckDbQueryEngine({
      objectStore: store,
      cacheDir: `${directory.path}/watchdog`,
      logger: lines,
      queryProcess: testQueryProcess,
      kernelMemoryLimit: false,
    });
    try {
      const error = await failure(watched.execute(request(first, 'SELECT len(list_sort(range(100000000)))')));
      expect(error.code).toBe('query_memory_exceeded');
      expect(killed('memory', lines.lines)).toHaveLength(1);
      expect((await watched.execute(request(first, 'SELECT count(*) FROM first'))).rows).toEqual([[100]]);
    } finally {
      await watched.close();
    }
  });
});

describe('legitimate heavy queries', () => {
  it(
    'a child that keeps what a heavy query used is retired, so the next ' + 'spilling sort has the whole budget',
    async () => {
      const before = killed('memory retained after a query').length;
      const grouped = await engine.execute(
        request(
          first,
          "SELECT count(*) FROM (SELECT range % 5000000 AS g, string_agg(range::VARCHAR, ',') FROM range(20000000) " +
            'GROUP BY ALL)',
        ),
      );
      expect(grouped.rows).toEqual([[5000000]]);
      await waitUntil(() => killed('memory retained after a query').length > before);
      const sorted = await engine.execute(
        request(first, 'SELECT sum(x) FROM (SELECT range AS x FROM range(50000000) ORDER BY random())'),
      );
      expect(sorted.rows).toEqual([[1249999975000000]]);
    },
  );
});

describe('the byte cap', () => {
  it('stops reading at maxBytes of JSON rows and says so (truncatedBy bytes)', async () => {
    const result = await engine.execute(request(first, "SELECT repeat('x', 100000) AS big FROM range(1000)"));
    expect(result).toMatchObject({ truncated: true, truncatedBy: 'bytes' });
    expect(result.rows).toHaveLength(41); // each row is ["x…"] (100,004 bytes) plus a comma
    expect(Buffer.byteLength(JSON.stringify(result.rows))).toBeLessThanOrEqual(maxBytes);
  });

  it('keeps the row cap: truncatedBy rows when a row beyond maxRows exists', async () => {
    const result = await engine.execute(request(first, 'SELECT n FROM first', { maxRows: 10 }));
    expect(result).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(result.rows).toHaveLength(10);
    expect(await engine.execute(request(first, 'SELECT n FROM first', { maxRows: 100 }))).toMatchObject({
      truncated: false,
    });
  });
});

describe('close', () => {
  it('leaves no query process behind', async () => {
    const lines = recordingLogger();
    const closing = createDuckDbQueryEngine({
      objectStore: store,
      cacheDir: `${directory.path}/close`,
      logger: lines,
      queryProcess: testQueryProcess,
    });
    await Promise.all([1, 2, 3].map(() => closing.execute(request(first, 'SELECT 1'))));
    const slow = failure(
      closing.execute(request(second, "SELECT levenshtein(repeat('a', 250000), repeat('b', 250000))")),
    );
    await waitUntil(() => lines.lines.filter((line) => line.message === 'query process started').length === 4);
    const pids = lines.lines.filter((line) => line.message === 'query process started').map((line) =>
      line.fields.pid as number
    );
    expect(pids.filter(isAlive)).toHaveLength(pids.length);
    await closing.close();
    expect(pids.filter(isAlive)).toEqual([]);
    expect((await slow).code).toBe('query_failed');
  });
});

describe('a query process whose parent goes away', () => {
  it('ends when its input closes, even in the middle of a runaway query', async () => {
    const databaseFile = await createDataBuilder({
      objectStore: store,
      cacheDir: `${directory.path}/orphan`,
      logger: recordingLogger(),
    }).databaseFile(first);
    const child = spawn(testQueryProcess.command, testQueryProcess.args, {
      env: testQueryProcess.env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (text: string) => lines.push(...text.split('\n').filter(Boolean)));
    child.stdin.write(
      `${JSON.stringify({ type: 'open', databaseFile, spillDirectory: `${directory.path}/orphan/spill` })}\n`,
    );
    const runaway = {
      type: 'execute',
      id: 1,
      scope: '_scope_x',
      views: [],
      sql: "SELECT levenshtein(repeat('a', 250000), repeat('b', 250000))",
      params: [],
      maxRows: 10,
      maxBytes: 1000,
    };
    child.stdin.write(`${JSON.stringify(runaway)}\n`);
    await waitUntil(() => lines.includes('{"type":"ready"}'));
    const exited = once(child, 'exit');
    child.stdin.end();
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
