import { describe, expect, test } from 'vitest';
import { normalizeAIContext, normalizeModel, pickExpression } from './normalize-model.ts';

const expr = (...pairs: [string, string][]) => ({
  dialects: pairs.map(([dialect, expression]) => ({ dialect, expression })),
});

describe('normalizeAIContext', () => {
  test('the string form becomes instructions; empty contexts vanish', () => {
    expect(normalizeAIContext('Use net amounts')).toEqual({ instructions: 'Use net amounts' });
    expect(normalizeAIContext('  ')).toBeUndefined();
    expect(normalizeAIContext({})).toBeUndefined();
    expect(normalizeAIContext(undefined)).toBeUndefined();
  });

  test('keeps instructions, synonyms, examples and any other keys under other', () => {
    expect(normalizeAIContext({ instructions: 'i', synonyms: ['s'], examples: ['e'], owner: 'ops', tags: ['a'] }))
      .toEqual({
        instructions: 'i',
        synonyms: ['s'],
        examples: ['e'],
        other: { owner: 'ops', tags: ['a'] },
      });
  });
});

describe('pickExpression', () => {
  test('prefers ANSI_SQL, else the first dialect, and keeps all dialects', () => {
    const both = expr(['SNOWFLAKE', 'a::NUMBER'], ['ANSI_SQL', 'CAST(a AS DECIMAL)']);
    expect(pickExpression(both)).toEqual({
      expression: 'CAST(a AS DECIMAL)',
      expressionDialect: 'ANSI_SQL',
      dialects: both.dialects,
    });
    expect(pickExpression(expr(['DATABRICKS', 'd_year'], ['MAQL', 'x']))).toMatchObject({
      expression: 'd_year',
      expressionDialect: 'DATABRICKS',
    });
  });
});

describe('normalizeModel', () => {
  const raw = {
    name: 'declared',
    description: 'd',
    datasets: [{
      name: 'events',
      source: 'db.events',
      primary_key: ['id'],
      unique_keys: [['id'], ['a', 'b']],
      fields: [
        { name: 'at', expression: expr(['ANSI_SQL', 'at']), datatype: 'DateTime', dimension: {} },
        { name: 'audit', expression: expr(['ANSI_SQL', 'audit']), datatype: 'DateTime', dimension: { is_time: false } },
        { name: 'year', expression: expr(['ANSI_SQL', 'year']), datatype: 'Integer', dimension: { is_time: true } },
        { name: 'kind', expression: expr(['ANSI_SQL', 'kind']), dimension: {} },
        { name: 'amount', expression: expr(['ANSI_SQL', 'amount']), datatype: 'Date' },
      ],
    }],
    relationships: [{ name: 'r', from: 'events', to: 'x', from_columns: ['a', 'b'], to_columns: ['c', 'd'] }],
  };

  test('resolves is_time with the OSI default (temporal datatype) and keeps no dimension when absent', () => {
    const { model, problems } = normalizeModel(raw, { name: 'events', fileName: 'events.yaml', version: '0.2.0.dev0' });
    expect(problems).toEqual([]);
    expect(model.datasets[0].fields.map((f) => f.dimension)).toEqual([
      { isTime: true },
      { isTime: false },
      { isTime: true },
      { isTime: false },
      undefined,
    ]);
  });

  test('maps keys to the internal shape; absent parts stay absent', () => {
    const { model } = normalizeModel(raw, { name: 'events', fileName: 'models/events.yaml', version: '0.2.0.dev0' });
    expect(model).toMatchObject({
      name: 'events',
      declaredName: 'declared',
      fileName: 'models/events.yaml',
      metrics: [],
      extensions: [],
    });
    expect(model.datasets[0]).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['id'], ['a', 'b']] });
    expect(model.relationships[0]).toEqual({
      name: 'r',
      from: 'events',
      to: 'x',
      fromColumns: ['a', 'b'],
      toColumns: ['c', 'd'],
      extensions: [],
    });
    expect('aiContext' in model).toBe(false);
    expect('viewQuery' in model.datasets[0]).toBe(false);
  });

  test('relationship columns must pair up', () => {
    const unpaired = {
      ...raw,
      relationships: [{ name: 'r', from: 'events', to: 'x', from_columns: ['a', 'b'], to_columns: ['c'] }],
    };
    const { problems } = normalizeModel(unpaired, { name: 'events', fileName: 'events.yaml', version: '0.2.0.dev0' });
    expect(problems).toEqual([
      {
        path: '/semantic_model/0/relationships/0/to_columns',
        reason:
          'from_columns has 2 column(s) but to_columns has 1; they pair up in order, so list as many on each side',
      },
    ]);
  });
});
