/**
 * execute_query through callTool with the real DuckDB parser behind a query engine port whose execute is a fake:
 * the parse cache is kept per project, so a text one project ran recently is parsed anew for another (no timing
 * tells it), and params beyond the placeholders are refused before anything runs or is stored (docs/decisions.md D18 §
 * 4, § 6).
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cacheDirectoryName } from '../../adapters/duckdb/data-build.ts';
import { createDuckDbParser } from '../../adapters/duckdb/parser.ts';
import { withRowsText } from '../../adapters/duckdb/query-protocol.ts';
import type { ExecuteRequest, QueryEngine, ScopeTarget } from '../../ports/query-engine.ts';
import { createMemoryDocumentStore } from '../../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import type { SemanticDeps } from '../deps.ts';
import type { SemanticModel } from '../model.ts';
import type { AssembledPlane } from '../planes.ts';
import { collections, type ProjectRecord, type TokenRecord } from '../records.ts';
import { loadModelFile } from '../osi/index.ts';
import { callTool } from './call-tool.ts';
import type { ToolContext } from './tool-context.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

let counter = 0;
const deps: SemanticDeps = {
  docs: createMemoryDocumentStore(),
  objects: createMemoryObjectStore(),
  clock: { now: () => new Date('2026-11-26T10:00:00Z') },
  ids: {
    newId: () => `id${(counter += 1)}`,
    randomBytes: (n) => new Uint8Array(n),
    sha256Hex: async (d) => createHash('sha256').update(d).digest('hex'),
  },
};
const executed: ExecuteRequest[] = [];
const prepared: ScopeTarget[] = [];
const partitions: (string | undefined)[] = [];
/** Every text parsed, with whose parse it was. */
const parsed: string[] = [];
/** The query engine port: the real parser (recording whose parse it was), a fake execute answering one row. */
const engine: QueryEngine = {
  parse: (sql, partition) => {
    partitions.push(partition);
    parsed.push(`${partition}: ${sql}`);
    return parser.parse(sql, partition);
  },
  execute: async (request) => {
    executed.push(request);
    return { columns: [{ name: 'one', type: 'INTEGER' }], rows: [[1]], truncated: false };
  },
  close: async () => undefined,
  prepareScope: (target) => {
    prepared.push(target);
  },
};
/** A real model (loaded from OSI YAML, so the digests render it): dataset `notes` from a view_query. */
const model = loadModelFile({
  fileName: 'models/notes_model.yaml',
  text: `version: "0.1.1"
semantic_model:
  - name: notes_model
    description: Notes.
    datasets:
      - name: notes
        source: data.notes
        fields:
          - name: id
            expression: { dialects: [{ dialect: ANSI_SQL, expression: id }] }
        custom_extensions:
          - vendor_name: COMMON
            data: '{"view_query": "SELECT 1 AS id"}'
`,
}).model as SemanticModel;
const plane = {
  plane: 'production',
  key: 'k',
  revision: 1,
  models: [model],
  problems: [],
  data: {},
} as unknown as AssembledPlane;

function contextOf(projectId: string): ToolContext {
  return {
    deps,
    engine,
    plane,
    project: { _id: projectId, slug: projectId, pageSize: 20 } as ProjectRecord,
    token: { _id: `token-of-${projectId}`, models: ['notes_model'] } as unknown as TokenRecord,
    callLog: { record: () => undefined, drain: async () => undefined, pendingCount: () => 0 },
    improvementLimiter: { consume: async () => ({ allowed: true, retryAfterSeconds: 0, remaining: 1, limit: 20 }) },
  };
}

describe('execute_query', () => {
  it('parses per project: a text project A ran recently goes to the engine again for project B', async () => {
    const sql = 'SELECT count(*) AS recently_run FROM notes';
    // The model's view_queries are checked on its first call (once per model object): not counted below.
    await callTool(contextOf('project-a'), 'execute_query', {
      modelName: 'notes_model',
      sql: 'SELECT 2',
      store: false,
    });
    const before = parser.engineParses();
    for (const projectId of ['project-a', 'project-a', 'project-b']) {
      const args = { modelName: 'notes_model', sql, store: false };
      const outcome = await callTool(contextOf(projectId), 'execute_query', args);
      expect(outcome.ok).toBe(true);
    }
    expect(partitions.slice(-3)).toEqual(['project-a', 'project-a', 'project-b']);
    expect(parser.engineParses() - before).toBe(2);
  });

  it('keeps a passing verdict per model object and project: a re-run is not parsed again, a refusal is', async () => {
    const run = (projectId: string, sql: string, context = contextOf(projectId)) =>
      callTool(context, 'execute_query', { modelName: 'notes_model', sql, store: false });
    const sql = 'SELECT id FROM notes WHERE id > 0';
    const parsesOf = (projectId: string, text: string) => parsed.filter((p) => p === `${projectId}: ${text}`).length;
    expect(await run('project-verdict', sql)).toMatchObject({ ok: true });
    expect(await run('project-verdict', sql)).toMatchObject({ ok: true });
    expect(parsesOf('project-verdict', sql)).toBe(1);
    // Another project asks the parser itself, as does the same project once a publish assembles a new model object.
    expect(await run('project-verdict-b', sql)).toMatchObject({ ok: true });
    expect(parsesOf('project-verdict-b', sql)).toBe(1);
    const republished = { ...contextOf('project-verdict'), plane: { ...plane, models: [{ ...model }] } };
    expect(await run('project-verdict', sql, republished as ToolContext)).toMatchObject({ ok: true });
    expect(parsesOf('project-verdict', sql)).toBe(2);
    const refused = 'SELECT * FROM notes; SELECT 1';
    for (let i = 0; i < 2; i += 1) {
      expect(await run('project-verdict', refused)).toMatchObject({ ok: false, code: 'query_rejected' });
    }
    expect(parsesOf('project-verdict', refused)).toBe(2);
  });

  it('refuses params beyond the placeholders before running or storing anything', async () => {
    const runs = executed.length;
    const args = { modelName: 'notes_model', sql: 'SELECT 1', params: ['x'] };
    const outcome = await callTool(contextOf('project-a'), 'execute_query', args);
    expect(outcome).toMatchObject({ ok: false, code: 'query_invalid_params' });
    expect(executed.length).toBe(runs);
    expect(await deps.docs.collection(collections.storedQueries).countDocuments({})).toBe(0);
  });

  it(
    'names the scope of the longest model name (200) as a plain file name ' + 'of its own, distinct per model',
    async () => {
      const names = ['m'.repeat(200), `${'m'.repeat(199)}n`];
      const scopes: string[] = [];
      for (const name of names) {
        const long = { name, datasets: [{ name: 'notes', viewQuery: 'SELECT 1 AS id' }] } as unknown as SemanticModel;
        const context = { ...contextOf('project-a'), plane: { ...plane, models: [long] } as AssembledPlane };
        context.token = { ...context.token, models: [name] } as TokenRecord;
        const outcome = await callTool(context, 'execute_query', { modelName: name, sql: 'SELECT 1', store: false });
        expect(outcome, JSON.stringify(outcome).slice(0, 300)).toMatchObject({ ok: true });
        scopes.push(executed[executed.length - 1].scope);
      }
      // The engine names a scope's file after the scope only while it is a plain name of at most 128 characters (else
      // a hash, which scope-build.ts can no longer match to its family to retire it when the views change).
      for (const scope of scopes) expect(cacheDirectoryName(scope)).toBe(scope);
      expect(new Set(scopes).size).toBe(2);
    },
  );

  it('get_semantic_model and get_datasets start preparing the scope a later execute_query runs on', async () => {
    prepared.length = 0;
    const context = contextOf('project-prepare');
    const overview = await callTool(context, 'get_semantic_model', { modelName: 'notes_model' });
    expect(overview, JSON.stringify(overview)).toMatchObject({ ok: true });
    const datasets = await callTool(context, 'get_datasets', {
      modelName: 'notes_model',
      datasets: [{ name: 'notes' }],
    });
    expect(datasets, JSON.stringify(datasets)).toMatchObject({ ok: true });
    await vi.waitFor(() => expect(prepared).toHaveLength(2));
    const query = { modelName: 'notes_model', sql: 'SELECT 1', store: false };
    const queried = await callTool(context, 'execute_query', query);
    expect(queried, JSON.stringify(queried)).toMatchObject({ ok: true });
    const ran = executed[executed.length - 1];
    const expected = { data: ran.data, scope: ran.scope, views: ran.views };
    expect(prepared).toEqual([expected, expected]);
  });

  it("writes the engine's text of the rows into its answer as it is, never reading the rows", async () => {
    const rows = [[1, 'a "quoted" é'], [2, null]];
    const columns = [{ name: 'id', type: 'INTEGER' }, { name: 'label', type: 'VARCHAR' }];
    const unread = () => {
      throw new Error('the rows were read');
    };
    for (const cut of [undefined, 'rows', 'bytes'] as const) {
      const fields = { columns, truncated: cut !== undefined, ...(cut ? { truncatedBy: cut } : {}) };
      const result = withRowsText(fields, { json: JSON.stringify(rows), count: 2 }, unread);
      const context = { ...contextOf('project-text'), engine: { ...engine, execute: async () => result } };
      for (const store of [false, true]) {
        const args = { modelName: 'notes_model', sql: 'SELECT 1', store };
        const outcome = await callTool(context, 'execute_query', args);
        if (!outcome.ok) throw new Error(outcome.message);
        const answer = JSON.parse(outcome.result.text) as Record<string, unknown>;
        const note = cut === 'bytes' ? { note: expect.stringContaining('only the first 2 row(s)') } : {};
        const stored = store ? { storedQueryId: expect.any(String) } : {};
        expect(answer).toEqual({ columns, rows, rowCount: 2, ...(cut ? { truncated: true } : {}), ...note, ...stored });
        // The same text, key for key, as JSON.stringify of the answer writes it.
        expect(outcome.result.text).toBe(JSON.stringify(answer));
      }
    }
  });
});
