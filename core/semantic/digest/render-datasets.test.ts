import { describe, expect, test } from 'vitest';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { Field } from '../model.ts';
import { digestTestModel } from './digest-test-model.ts';
import { fieldLine } from './field-line.ts';
import { expressionNote, notQueryableNote, renderDatasets } from './render-datasets.ts';

const model = digestTestModel();
const field = (extra: Partial<Field>): Field => ({
  name: 'f',
  expression: 'f',
  expressionDialect: 'ANSI_SQL',
  dialects: [{ dialect: 'ANSI_SQL', expression: 'f' }],
  extensions: [],
  ...extra,
});

describe('fieldLine', () => {
  test('name, type, time marker, label, expression, description, values, synonyms, examples, instructions', () => {
    expect(fieldLine(model.datasets[0].fields[0])).toBe(
      '- carrier String "Airline": Two-letter carrier code; values AA|DL|UA; aka airline; e.g. AA | WN',
    );
    expect(fieldLine(model.datasets[0].fields[3])).toBe('- "departs at" DateTime time = CAST(dep_ts AS TIMESTAMP)');
    expect(fieldLine(model.datasets[0].fields[4])).toBe(
      '- tail_no = [SNOWFLAKE] TAIL: note: Aircraft registration; may be null.',
    );
  });

  test('omits what says nothing: expression equal to the name, label equal to the name, is_time false', () => {
    expect(fieldLine(field({ expression: '"F"', label: 'F', dimension: { isTime: false } }))).toBe('- f');
    expect(fieldLine(model.datasets[0].fields[1])).toBe('- flight_no Integer');
    expect(fieldLine(model.datasets[0].fields[5])).toBe('- departs_at DateTimeTz');
  });
});

describe('renderDatasets', () => {
  test('shows table name, description, instructions, keys (unique keys other than the primary key) and fields', () => {
    const text = renderDatasets(model, [{ name: 'flights' }], { pageSize: 25 });
    const lines = text.split('\n');
    expect(lines[0]).toBe('## "flights"');
    expect(lines[1]).toMatch(/^One row per scheduled flight leg, including cancelled ones\. Delays .* early\.$/);
    expect(lines.slice(2, 5)).toEqual([
      'Instructions: Filter cancelled = false unless asked about cancellations.',
      'PK: carrier, flight_no, day',
      'Unique: (tail_no, departs_at)',
    ]);
    expect(lines).toContain('- delay_min Integer = arr_delay: Arrival delay; tags: ["kpi"]');
    expect(text.endsWith(expressionNote)).toBe(true);
    expect(text).not.toContain(notQueryableNote);
  });

  test('pages the fields of each dataset independently, with a hint naming the next page', () => {
    const text = renderDatasets(model, [{ name: 'flights', page: 2 }, { name: 'Airports' }], { pageSize: 3 });
    expect(text).toBe(
      [
        '## "flights" (fields 4-6 of 7)',
        '- "departs at" DateTime time = CAST(dep_ts AS TIMESTAMP)',
        '- tail_no = [SNOWFLAKE] TAIL: note: Aircraft registration; may be null.',
        '- departs_at DateTimeTz',
        '*1 more field: get_datasets {name: "flights", page: 3}*',
        '',
        '## "Airports" [no view_query]',
        '- iata',
        '- city',
        '',
        `${notQueryableNote}\n${expressionNote}`,
      ].join('\n'),
    );
    expect(renderDatasets(model, [{ name: 'flights', page: 1 }], { pageSize: 3 })).toContain(
      '*4 more fields: get_datasets {name: "flights", page: 2}*',
    );
  });

  test('a field page past the end names the last page; the other datasets still render', () => {
    const text = renderDatasets(model, [{ name: 'flights', page: 9 }, { name: 'empty_one' }], { pageSize: 3 });
    expect(text).toContain('## "flights"\nPage 9 is past the end of the fields of "flights"; the last page is 3.');
    expect(text).toContain('## "empty_one" [no view_query]\nNo fields defined.');
  });

  test("an unknown dataset gets a line naming it and the model's datasets; the others still render", () => {
    const text = renderDatasets(model, [{ name: 'planes' }, { name: 'airports' }], { pageSize: 25 });
    expect(text.split('\n\n')[0]).toBe(
      'Unknown dataset "planes": model flights has the datasets "flights", "Airports", "empty_one".',
    );
    expect(text).toContain('## "Airports" [no view_query]\n- iata\n- city');
  });

  test('takes 1 to 10 datasets per call', () => {
    for (const requests of [[], Array.from({ length: 11 }, () => ({ name: 'flights' }))]) {
      expect.soft(() => renderDatasets(model, requests, { pageSize: 5 })).toThrow(
        'get_datasets takes 1 to 10 datasets per call',
      );
      try {
        renderDatasets(model, requests, { pageSize: 5 });
      } catch (error) {
        expect(isPlatformError(error, 'invalid_argument')).toBe(true);
      }
    }
    expect(renderDatasets(model, Array.from({ length: 10 }, () => ({ name: 'Airports' })), { pageSize: 5 })).toContain(
      '"Airports"',
    );
  });
});
