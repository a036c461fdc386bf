import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { datasetsWithoutViewQuery } from '../model.ts';
import { loadModelFile } from './load-model-file.ts';
import { readFieldValues, readViewQuery } from './extensions.ts';

const ext = (vendor_name: string, data: unknown) => ({
  vendor_name,
  data: typeof data === 'string' ? data : JSON.stringify(data),
});
const field = (name: string, extra: object = {}) => ({
  name,
  expression: { dialects: [{ dialect: 'ANSI_SQL', expression: name }] },
  ...extra,
});
const dataset = (name: string, custom_extensions?: object[]) => ({
  name,
  source: `db.${name}`,
  fields: [field('id')],
  custom_extensions,
});
const load = (datasets: object[], version = '0.2.0.dev0') =>
  loadModelFile({ fileName: 'models/m.yaml', text: stringify({ version, semantic_model: [{ name: 'm', datasets }] }) });

describe('view_query', () => {
  test('is read from a COMMON extension (how existing tools write it) and from CAIRN', () => {
    const loaded = load([
      dataset('a', [ext('COMMON', { view_query: "SELECT * FROM read_parquet('a.parquet')" })]),
      dataset('b', [ext('CAIRN', { view_query: 'SELECT 1 AS id' })]),
      dataset('c', [ext('SNOWFLAKE', { warehouse: 'x' })]),
    ]);
    expect(loaded.problems).toEqual([]);
    const [a, b, c] = loaded.model!.datasets;
    expect(a.viewQuery).toBe("SELECT * FROM read_parquet('a.parquet')");
    expect(b.viewQuery).toBe('SELECT 1 AS id');
    expect(c.viewQuery).toBeUndefined();
    expect(datasetsWithoutViewQuery(loaded.model!)).toEqual(['c']);
  });

  test('CAIRN wins when both exist, in either order; every extension stays unmodified', () => {
    const extensions = [
      ext('CAIRN', { view_query: 'SELECT 2' }),
      ext('DBT', '{"x": 1}'),
      ext('COMMON', { view_query: 'SELECT 1', other: true }),
    ];
    for (const list of [extensions, [...extensions].reverse()]) {
      const d = load([dataset('a', list)]).model!.datasets[0];
      expect(d.viewQuery).toBe('SELECT 2');
      expect(d.extensions).toEqual(list);
    }
  });

  test('vendor names are matched case-insensitively; entries without view_query are ignored', () => {
    expect(readViewQuery([ext('cairn', { view_query: 'SELECT 3' })], '/d').viewQuery).toBe('SELECT 3');
    expect(readViewQuery([ext('COMMON', { source_format: 'OBML' })], '/d')).toEqual({
      viewQuery: undefined,
      problems: [],
    });
  });

  test('invalid JSON in a COMMON or CAIRN dataset extension is a problem with file, path and reason', () => {
    const loaded = load([
      dataset('a'),
      dataset('b', [ext('DBT', 'not json'), ext('COMMON', '{"view_query": "SELECT 1"')]),
    ]);
    expect(loaded.model).toBeUndefined();
    expect(loaded.problems).toEqual([
      {
        file: 'models/m.yaml',
        model: 'm',
        path: '/semantic_model/0/datasets/1/custom_extensions/1/data',
        line: expect.any(Number),
        column: expect.any(Number),
        reason: expect.stringMatching(/^COMMON extension: data is not valid JSON \(/),
      },
    ]);
  });

  test('a view_query that is not a non-empty string, a second one of the same vendor, non-object CAIRN data', () => {
    expect(readViewQuery([ext('CAIRN', { view_query: 5 })], '/d').problems[0].reason).toBe(
      'view_query must be a non-empty SQL string',
    );
    expect(readViewQuery([ext('COMMON', { view_query: ' ' })], '/d').problems[0].reason).toBe(
      'view_query must be a non-empty SQL string',
    );
    const twice = readViewQuery(
      [ext('COMMON', { view_query: 'SELECT 1' }), ext('COMMON', { view_query: 'SELECT 2' })],
      '/d',
    );
    expect(twice).toEqual({
      viewQuery: 'SELECT 1',
      problems: [{
        path: '/d/custom_extensions/1/data',
        reason: 'a second COMMON view_query for this dataset; keep only one',
      }],
    });
    expect(readViewQuery([ext('CAIRN', '"SELECT 1"')], '/d').problems[0].reason).toContain(
      'data must be a JSON object',
    );
  });

  test(
    'bad CAIRN data on a field, relationship, metric or the model is a ' + 'problem; other vendors are not judged',
    () => {
      const loaded = loadModelFile({
        fileName: 'm.yaml',
        text: stringify({
          version: '0.2.0.dev0',
          semantic_model: [{
            name: 'm',
            datasets: [{
              name: 'a',
              source: 's',
              fields: [field('id', { custom_extensions: [ext('CAIRN', '{'), ext('X', '{')] })],
            }],
            metrics: [{
              name: 'n',
              expression: { dialects: [{ dialect: 'ANSI_SQL', expression: 'COUNT(*)' }] },
              custom_extensions: [ext('CAIRN', '[')],
            }],
            custom_extensions: [ext('CAIRN', 'x'), ext('SALESFORCE', 'x')],
          }],
        }),
      });
      expect(loaded.problems.map((p) => p.path)).toEqual([
        '/semantic_model/0/datasets/0/fields/0/custom_extensions/0/data',
        '/semantic_model/0/custom_extensions/0/data',
        '/semantic_model/0/metrics/0/custom_extensions/0/data',
      ]);
    },
  );

  test('a CAIRN vendor name is outside the 0.1.1 vendor enum: such a file names the allowed vendors', () => {
    const loaded = load([dataset('a', [ext('CAIRN', { view_query: 'SELECT 1' })])], '0.1.1');
    expect(loaded.problems[0]).toMatchObject({
      path: '/semantic_model/0/datasets/0/custom_extensions/0/vendor_name',
      reason: expect.stringContaining('use one of: COMMON'),
    });
    expect(load([dataset('a', [ext('COMMON', { view_query: 'SELECT 1' })])], '0.1.1').model!.datasets[0].viewQuery)
      .toBe('SELECT 1');
  });
});

describe('field values (enums and samples)', () => {
  test('come from enum / allowed_values / sample_values of any vendor, de-duplicated, as text', () => {
    expect(
      readFieldValues([
        ext('GOODDATA', { enum: ['A', 'B'] }),
        ext('CUBE', { allowed_values: ['B', 'C', 3], sample_values: ['x', { y: 1 }] }),
        ext('BROKEN', '{'),
        ext('OTHER', { enum: 'not a list' }),
      ]),
    ).toEqual({ enums: ['A', 'B', 'C', '3'], sampleValues: ['x', '{"y":1}'] });
    expect(readFieldValues([])).toEqual({ enums: undefined, sampleValues: undefined });
  });

  test('land on the model field next to ai_context examples', () => {
    const f = field('status', {
      ai_context: { examples: ['open'] },
      custom_extensions: [ext('X', { enum: ['open', 'closed'] })],
    });
    const loaded = load([{ name: 'a', source: 's', fields: [f] }]);
    expect(loaded.model!.datasets[0].fields[0]).toMatchObject({
      enums: ['open', 'closed'],
      aiContext: { examples: ['open'] },
    });
  });
});
