import { describe, expect, test } from 'vitest';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { Dataset, SemanticModel } from '../model.ts';
import { digestTestModel } from './digest-test-model.ts';
import { renderModelList } from './render-model-list.ts';
import { renderModelOverview } from './render-model-overview.ts';
import { renderModelSection } from './render-model-section.ts';

const dataset = (name: string, viewQuery?: string): Dataset => ({
  name,
  source: `db.${name}`,
  fields: [],
  extensions: [],
  ...(viewQuery ? { viewQuery } : {}),
  description: `About ${name}`,
});
const fiveDatasets = (): SemanticModel => ({
  ...digestTestModel(),
  datasets: ['a', 'b', 'c', 'd', 'e'].map((n) => dataset(n, 'SELECT 1')),
});

describe('renderModelList', () => {
  test('one line per model with its description; a sentence when empty', () => {
    expect(renderModelList([{ name: 'flights', description: 'US\nflights' }, { name: 'sales' }])).toBe(
      '# Semantic models (2)\n- flights: US flights\n- sales\nUse get_semantic_model with a modelName for its ' +
        'datasets, relationships and metrics.',
    );
    expect(renderModelList([])).toBe('No semantic models are available to this token.');
  });
});

describe('renderModelOverview', () => {
  test('shows name, description, instructions, AI context, how to query, and every section', () => {
    const text = renderModelOverview(digestTestModel(), { pageSize: 25 });
    expect(text.split('\n').slice(0, 5)).toEqual([
      '# Model flights',
      'US domestic flights with delays',
      'Instructions: Times are local.',
      'aka air travel; e.g. Which airline is most late?; owner: ops team',
      'SQL: use the quoted dataset names as tables, no schema prefix.',
    ]);
    expect(text).toContain(
      '## Datasets (3) [no view_query] = not queryable yet\n- "flights" (7 fields): One row per scheduled flight leg',
    );
    expect(text).toContain('- "Airports" (2 fields) [no view_query]\n');
    expect(text).toContain('- leg_to_tail: flights.carrier → empty_one.c, flights.tail_no → empty_one.t');
    expect(text).toContain(
      '- avg_delay Float = AVG( flights.arr_delay): Mean arrival delay; aka average lateness; note: Exclude ' +
        'cancelled flights.',
    );
    expect(text).toContain('- leg_count = [DATABRICKS] COUNT(*)');
    expect(text).not.toMatch(/^\*/m);
  });

  test('the first page of each section ends with a hint naming the scope and page 2', () => {
    const text = renderModelOverview(fiveDatasets(), { pageSize: 2 });
    expect(text).toContain(
      '## Datasets (1-2 of 5)\n- "a" (0 fields): About a\n- "b" (0 fields): About b\n*3 more datasets: ' +
        'get_semantic_model scope "datasets", page 2*',
    );
    expect(text).toContain('## Relationships (2) many → one');
    expect(text).not.toContain('scope "relationships"');
  });

  test('a page where no dataset is queryable says so once instead of on every row', () => {
    const model = { ...fiveDatasets(), datasets: [dataset('a'), dataset('b')] };
    const text = renderModelOverview(model, { pageSize: 5 });
    expect(text).toContain(
      '## Datasets (2) none queryable yet: no view_query\n- "a" (0 fields): About a\n- "b" (0 fields): About b',
    );
  });

  test('empty sections are named in one line', () => {
    const text = renderModelOverview({ ...digestTestModel(), relationships: [], metrics: [] }, { pageSize: 5 });
    expect(text.endsWith('No relationships or metrics defined.')).toBe(true);
  });

  test('a bad page size is an invalid_argument error', () => {
    expect.assertions(2);
    try {
      renderModelOverview(digestTestModel(), { pageSize: 0 });
    } catch (error) {
      expect(isPlatformError(error, 'invalid_argument')).toBe(true);
      expect((error as Error).message).toContain('pageSize');
    }
  });
});

describe('renderModelSection pagination', () => {
  const model = fiveDatasets();
  const page = (n: number) => renderModelSection(model, { scope: 'datasets', page: n, pageSize: 2 });

  test('pages hold pageSize items, with a hint to the next page until the last', () => {
    expect(page(1)).toBe(
      '# Model flights: datasets, page 1 of 3\n## Datasets (1-2 of 5)\n- "a" (0 fields): About a\n- "b" (0 ' +
        'fields): About b\n*3 more datasets: get_semantic_model scope "datasets", page 2*',
    );
    expect(page(2)).toContain(
      '## Datasets (3-4 of 5)\n- "c" (0 fields): About c\n- "d" (0 fields): About d\n*1 more dataset: ' +
        'get_semantic_model scope "datasets", page 3*',
    );
    expect(page(3)).toBe('# Model flights: datasets, page 3 of 3\n## Datasets (5 of 5)\n- "e" (0 fields): About e');
  });

  test('the page defaults to 1; an exact multiple has no empty last page', () => {
    expect(renderModelSection(model, { scope: 'datasets', pageSize: 2 })).toBe(page(1));
    expect(renderModelSection(model, { scope: 'datasets', page: 1, pageSize: 5 })).not.toContain('more');
    expect(renderModelSection(model, { scope: 'datasets', page: 2, pageSize: 5 })).toBe(
      'Page 2 is past the end of the datasets of model flights; the last page is 1.',
    );
  });

  test('a page beyond the end, zero or a fraction names the last page', () => {
    expect(page(4)).toBe('Page 4 is past the end of the datasets of model flights; the last page is 3.');
    expect(page(0)).toBe('Page 0 does not exist: pages of the datasets of model flights run from 1 to 3.');
    expect(page(1.5)).toBe('Page 1.5 does not exist: pages of the datasets of model flights run from 1 to 3.');
  });

  test('relationships and metrics page the same way; an empty section says so', () => {
    expect(renderModelSection(digestTestModel(), { scope: 'metrics', page: 2, pageSize: 1 })).toBe(
      '# Model flights: metrics, page 2 of 2\n## Metrics (2 of 2)\n- leg_count = [DATABRICKS] COUNT(*)',
    );
    expect(renderModelSection(digestTestModel(), { scope: 'relationships', page: 1, pageSize: 1 })).toContain(
      '*1 more relationship: get_semantic_model scope "relationships", page 2*',
    );
    expect(renderModelSection({ ...digestTestModel(), metrics: [] }, { scope: 'metrics', page: 1, pageSize: 1 })).toBe(
      'Model flights has no metrics.',
    );
  });
});
