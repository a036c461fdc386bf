import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { Value } from '@sinclair/typebox/value';
import { formatModelProblem, SemanticModel } from '../model.ts';
import { loadModelFile, modelNameOf } from './load-model-file.ts';
import { loadModels } from './load-models.ts';
import { invalidOsiFiles, tpcdsExamples, validOsiFiles } from './testdata/osi-fixtures.ts';

const field = (name: string, expression = name) => ({
  name,
  expression: { dialects: [{ dialect: 'ANSI_SQL', expression }] },
});
const model = (name = 'm', extra: object = {}) => ({
  name,
  datasets: [{ name: 'flights', source: 'db.public.flights', fields: [field('origin')] }],
  ...extra,
});
const osi = (models: object[], version: unknown = '0.2.0.dev0') => stringify({ version, semantic_model: models });

describe('loadModelFile with the OSI examples and fixtures', () => {
  test('there are fixtures of both versions to load', () => {
    expect(validOsiFiles.length).toBeGreaterThanOrEqual(17);
    expect(tpcdsExamples.map((f) => f.fileName).sort()).toEqual([
      'main/examples/tpcds_semantic_model.yaml',
      'release-0.1.1/examples/tpcds_semantic_model.yaml',
    ]);
  });

  test.each(validOsiFiles.map((f) => [f.fileName, f]))('%s loads without problems', (_name, file) => {
    const loaded = loadModelFile(file);
    expect(loaded.problems.map(formatModelProblem)).toEqual([]);
    expect(Value.Check(SemanticModel, loaded.model)).toBe(true);
  });

  test('the 0.1.1 and 0.2.0.dev0 TPC-DS examples load with their version and content', () => {
    const [v020, v011] = tpcdsExamples.map((f) => loadModelFile(f).model!);
    expect(v011.version).toBe('0.1.1');
    expect(v020.version).toBe('0.2.0.dev0');
    for (const m of [v011, v020]) {
      expect(m.name).toBe('tpcds_semantic_model');
      expect(m.declaredName).toBe('tpcds_retail_model');
      expect(m.datasets.map((d) => d.name)).toEqual(['store_sales', 'date_dim', 'customer', 'item', 'store']);
      expect(m.relationships[0]).toMatchObject({
        from: 'store_sales',
        to: 'date_dim',
        fromColumns: ['ss_sold_date_sk'],
        toColumns: ['d_date_sk'],
      });
      expect(m.aiContext?.instructions).toMatch(/^Use this semantic model for retail analytics/);
      expect(m.extensions.map((e) => e.vendor_name)).toEqual(['SALESFORCE', 'DBT']);
    }
    const dDate = v020.datasets[1].fields.find((f) => f.name === 'd_date')!;
    expect(dDate).toMatchObject({ datatype: 'Date', dimension: { isTime: true } });
  });

  test.each(invalidOsiFiles.map((f) => [f.fileName, f]))(
    '%s is rejected with file, place and reason',
    (_name, file) => {
      const loaded = loadModelFile(file);
      expect(loaded.model).toBeUndefined();
      expect(loaded.problems.length).toBeGreaterThan(0);
      for (const problem of loaded.problems) {
        expect(problem.file).toBe(file.fileName);
        expect(problem.model).toBe(modelNameOf(file.fileName));
        expect(problem.line).toBeGreaterThan(0);
        expect(problem.reason.length).toBeGreaterThan(10);
      }
    },
  );

  test('the invalid examples say what is wrong, where', () => {
    const byName = (suffix: string) =>
      loadModelFile(invalidOsiFiles.find((f) => f.fileName.endsWith(suffix))!).problems;
    expect(byName('p2p_behavior_effects_minimal.yaml')[0]).toMatchObject({
      path: '/version',
      reason: expect.stringContaining('"0.1.1" or "0.2.0.dev0"'),
    });
    expect(byName('sensitivity_example.yaml')[0].reason).toContain('found version "1.0"');
    expect(byName('structured_source_semantic_model.yaml')[0]).toMatchObject({
      path: '/semantic_model/0/datasets/0/source',
      reason: 'must be text, found a mapping',
    });
    expect(byName('osi_retail.yaml')[0]).toMatchObject({
      path: '/semantic_model/0/datasets/0/fields/4/expression/dialects/0/dialect',
      reason: expect.stringContaining('"DUCKDB" is not allowed; use one of: ANSI_SQL'),
    });
    expect(byName('microsoft_extension.yaml')).toEqual([
      expect.objectContaining({
        line: 58,
        column: 71,
        reason: expect.stringMatching(/^YAML syntax error: Missing closing 'quote/),
      }),
    ]);
  });
});

describe('loadModelFile rules', () => {
  test('the model name is the base name without .yaml or .yml', () => {
    expect(modelNameOf('models/flights.yaml')).toBe('flights');
    expect(modelNameOf('a\\b\\Sales.YML')).toBe('Sales');
    expect(modelNameOf('models/flights.json')).toBeUndefined();
    expect(modelNameOf('.yaml')).toBeUndefined();
    expect(loadModelFile({ fileName: 'models/f.json', text: osi([model()]) }).problems[0]).toMatchObject({
      file: 'models/f.json',
      model: 'f.json',
      reason: expect.stringContaining('.yaml or .yml'),
    });
  });

  test('a YAML syntax error gives line and column', () => {
    const loaded = loadModelFile({
      fileName: 'models/x.yaml',
      text: 'version: "0.2.0.dev0"\nsemantic_model: [\n  - a\n',
    });
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toMatchObject({
      file: 'models/x.yaml',
      line: expect.any(Number),
      column: expect.any(Number),
    });
    expect(loaded.problems[0].reason).toMatch(/^YAML syntax error: /);
  });

  test('alias bombs are refused, not expanded', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i += 1) {
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${
          Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')
        }]`,
      );
    }
    const loaded = loadModelFile({ fileName: 'bomb.yaml', text: `${levels.join('\n')}\nversion: "0.2.0.dev0"\n` });
    expect(loaded.problems[0].reason).toMatch(/^YAML could not be read: /);
  });

  test('duplicate YAML keys are a syntax problem', () => {
    const loaded = loadModelFile({
      fileName: 'x.yaml',
      text: 'version: "0.2.0.dev0"\nversion: "0.1.1"\nsemantic_model: []\n',
    });
    expect(loaded.problems[0]).toMatchObject({ line: 2, reason: expect.stringContaining('YAML syntax error') });
  });

  test('an unquoted numeric version and a missing version are explained', () => {
    expect(loadModelFile({ fileName: 'x.yaml', text: 'version: 0.2\nsemantic_model: []\n' }).problems[0].reason).toBe(
      'OSI version must be "0.1.1" or "0.2.0.dev0"; found version 0.2 (write it in quotes: YAML reads it as a number)',
    );
    expect(loadModelFile({ fileName: 'x.yaml', text: 'semantic_model: []\n' }).problems[0].reason).toContain(
      'found no version key',
    );
    expect(loadModelFile({ fileName: 'x.yaml', text: '- a\n' }).problems[0].reason).toContain('must be a mapping');
  });

  test('a file with two models is rejected and told to split; so is one with none', () => {
    const two = loadModelFile({ fileName: 'models/two.yaml', text: osi([model('a'), model('b')]) });
    expect(two.model).toBeUndefined();
    expect(two.problems).toEqual([
      expect.objectContaining({
        file: 'models/two.yaml',
        path: '/semantic_model',
        line: 3,
        reason: expect.stringContaining('split it into one file per model'),
      }),
    ]);
    expect(loadModelFile({ fileName: 'none.yaml', text: osi([]) }).problems[0].reason).toContain('lists no model');
  });

  test('schema problems carry JSON pointer, line and a plain reason', () => {
    const bad = model('m', {
      datasets: [{ name: 'flights', source: 'x', fields: [field('a'), { name: 'b', expresion: {} }], behavior: 1 }],
    });
    const problems = loadModelFile({ fileName: 'm.yaml', text: osi([bad]) }).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: '/semantic_model/0/datasets/0/fields/1',
          reason: 'missing required key "expression"',
        }),
        expect.objectContaining({
          path: '/semantic_model/0/datasets/0/fields/1/expresion',
          reason: expect.stringMatching(/^unknown key "expresion"; allowed keys here: name, expression/),
        }),
        expect.objectContaining({
          path: '/semantic_model/0/datasets/0/behavior',
          reason: expect.stringContaining('unknown key "behavior"'),
        }),
      ]),
    );
    expect(problems.every((p) => p.line !== undefined)).toBe(true);
  });

  test('a bad ai_context reports the matching branch only, not oneOf noise', () => {
    const synonymsNotList = model('m', { ai_context: { synonyms: 'planes' } });
    expect(loadModelFile({ fileName: 'm.yaml', text: osi([synonymsNotList]) }).problems.map((p) => [p.path, p.reason]))
      .toEqual([
        ['/semantic_model/0/ai_context/synonyms', 'must be a list, found "planes"'],
      ]);
    const numeric = model('m', { ai_context: 42 });
    expect(loadModelFile({ fileName: 'm.yaml', text: osi([numeric]) }).problems.map((p) => [p.path, p.reason])).toEqual(
      [
        ['/semantic_model/0/ai_context', 'must be text or a mapping (key: value), found number 42'],
      ],
    );
  });

  test('field datatype exists only in 0.2.0.dev0: a 0.1.1 file with it is rejected', () => {
    const typed = model('m', {
      datasets: [{ name: 'd', source: 's', fields: [{ ...field('a'), datatype: 'Integer' }] }],
    });
    expect(loadModelFile({ fileName: 'm.yaml', text: osi([typed]) }).problems).toEqual([]);
    expect(loadModelFile({ fileName: 'm.yaml', text: osi([typed], '0.1.1') }).problems[0].path).toBe(
      '/semantic_model/0/datasets/0/fields/0/datatype',
    );
  });

  test('duplicate dataset and field names (case-insensitive) are problems', () => {
    const dup = model('m', {
      datasets: [
        { name: 'flights', source: 's', fields: [field('a'), field('A')] },
        { name: 'Flights', source: 's' },
      ],
    });
    expect(loadModelFile({ fileName: 'm.yaml', text: osi([dup]) }).problems.map((p) => [p.path, p.reason])).toEqual([
      ['/semantic_model/0/datasets/1/name', 'dataset name "Flights" is already used at /semantic_model/0/datasets/0'],
      [
        '/semantic_model/0/datasets/0/fields/1/name',
        'field name "A" is already used at /semantic_model/0/datasets/0/fields/0',
      ],
    ]);
  });

  test('many problems are capped with a count of the rest', () => {
    const fields = Array.from({ length: 40 }, (_, i) => ({ name: `f${i}` }));
    const problems =
      loadModelFile({ fileName: 'm.yaml', text: osi([model('m', { datasets: [{ name: 'd', source: 's', fields }] })]) })
        .problems;
    expect(problems).toHaveLength(26);
    expect(problems[25].reason).toBe('15 more problem(s) not listed; fix these first');
  });
});

describe('loadModels', () => {
  test('returns every valid model and every problem; never drops a file silently', () => {
    const result = loadModels([
      { fileName: 'models/a.yaml', text: osi([model('a')]) },
      { fileName: 'models/b.yaml', text: osi([model('b'), model('c')]) },
      { fileName: 'models/c.yml', text: 'version: [' },
      { fileName: 'other/a.yaml', text: osi([model('a')]) },
    ]);
    expect(result.models.map((m) => m.name)).toEqual(['a']);
    expect(result.problems.map((p) => [p.file, p.model])).toEqual([
      ['models/b.yaml', 'b'],
      ['models/c.yml', 'c'],
      ['other/a.yaml', 'a'],
    ]);
    expect(result.problems[2].reason).toBe('model name "a" is already used by models/a.yaml; rename one file');
  });
});
