/**
 * A query process sends its rows as the JSON text it wrote while counting their bytes, and the parent hands that text
 * on without parsing it: `rowsText` is exactly JSON.stringify(rows) (values converted as json-values.ts says), also
 * for a result cut at a cap; `rows` are parsed from it only when read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSet, ExecuteRequest, QueryEngine } from '../../ports/query-engine.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createDuckDbQueryEngine } from './index.ts';
import { fromWire, toWire } from './query-protocol.ts';
import { dataSetOf, recordingLogger, temporaryDirectory, testQueryProcess, writeDataFiles } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let engine: QueryEngine;
let data: DataSet;

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-rows-text-');
  const store = createMemoryObjectStore();
  const bytes = await writeDataFiles(directory.path, {
    'notes.parquet':
      "SELECT range AS n, 'note \"' || range || '\" é' AS text, DATE '2024-01-01' + range::INTEGER AS day, " +
      'range * 1.5 AS half FROM range(50)',
  });
  data = await dataSetOf(store, bytes);
  engine = createDuckDbQueryEngine({
    objectStore: store,
    cacheDir: `${directory.path}/cache`,
    logger: recordingLogger(),
    queryProcess: testQueryProcess,
  });
});

afterAll(async () => {
  await engine.close();
  await directory.remove();
});

const request = (sql: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  data,
  scope: '_scope_rows_text',
  views: [{ name: 'notes', sql: 'SELECT * FROM data.notes' }],
  sql,
  params: [],
  maxRows: 1000,
  maxBytes: 4 * 1024 * 1024,
  timeoutMs: 30_000,
  ...overrides,
});

describe('rows as the query process wrote them', () => {
  it('carries JSON.stringify(rows) as rowsText, whole and cut at each cap', async () => {
    const sql = 'SELECT n, text, day, half, NULL AS nothing FROM notes ORDER BY n';
    for (const caps of [{}, { maxRows: 7 }, { maxBytes: 300 }]) {
      const result = await engine.execute(request(sql, caps));
      expect(result.rowsText).toBeDefined();
      expect(result.rowsText!.json).toBe(JSON.stringify(result.rows));
      expect(result.rowsText!.count).toBe(result.rows.length);
    }
    const whole = await engine.execute(request(sql));
    expect(whole.rows[1]).toEqual([1, 'note "1" é', '2024-01-02', 1.5, null]);
  });

  it('keeps the text out of copies and comparisons, and drops it once the rows are replaced', () => {
    const wire = toWire({ columns: [{ name: 'n', type: 'INTEGER' }], rows: [[1], [2]], truncated: false });
    expect(wire.rowsText).toEqual({ json: '[[1],[2]]', count: 2 });
    const result = fromWire(JSON.parse(JSON.stringify(wire)));
    expect(result).toEqual({ columns: [{ name: 'n', type: 'INTEGER' }], rows: [[1], [2]], truncated: false });
    expect(Object.keys(result)).not.toContain('rowsText');
    result.rows = [[3]];
    expect(result.rowsText).toBeUndefined();
    expect(toWire(result).rowsText).toEqual({ json: '[[3]]', count: 1 });
  });
});
