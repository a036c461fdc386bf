/**
 * Rows of the three model sections (datasets, relationships, metrics) and one rendered page of a section,
 * shared by the overview and by single-section pages.
 *
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
import type { Dataset, Metric, Relationship, SemanticModel } from '../model.ts';
import {
  aiContextParts,
  counted,
  oneLine,
  type Page,
  pageOf,
  quoteColumn,
  quoteTable,
  rangeLabel,
  shorten,
} from './markdown.ts';

/**
 * A section of a model that get_semantic_model can page through.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export type SectionScope = 'datasets' | 'relationships' | 'metrics';

/**
 * Longest dataset description shown in a section row; get_datasets shows it whole.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export const rowDescriptionChars = 160;

/**
 * Marker on dataset rows without a view_query.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export const notQueryableMark = '[no view_query]';

/**
 * The expression as written for the digest: one line, prefixed with its dialect unless ANSI_SQL.
 * Source: spec/semantic-query-service.md § Resources and their fields (expression).
 */
export function expressionText(item: { expression: string; expressionDialect: string }): string {
  const dialect = item.expressionDialect === 'ANSI_SQL' ? '' : `[${item.expressionDialect}] `;
  return `${dialect}${oneLine(item.expression)}`;
}

/**
 * `- "name" (N fields) [no view_query]: short description`; the mark is left out when the page heading
 * already says that no dataset on the page is queryable.
 * Source: spec/semantic-query-service.md § Tools (each dataset row includes its quoted table name).
 */
export function datasetRow(
  dataset: Dataset,
  options: { markNotQueryable: boolean } = { markNotQueryable: true },
): string {
  const head = `- ${quoteTable(dataset.name)} (${counted(dataset.fields.length, 'field')})`;
  const mark = options.markNotQueryable && dataset.viewQuery === undefined ? ` ${notQueryableMark}` : '';
  const description = dataset.description ? `: ${shorten(dataset.description, rowDescriptionChars)}` : '';
  return `${head}${mark}${description}`;
}

/**
 * `- name: from.a → to.b, from.c → to.d; aka …` (composite keys paired in order).
 * Source: spec/semantic-query-service.md § Resources and their fields (relationships).
 */
export function relationshipRow(relationship: Relationship): string {
  const pairs = relationship.fromColumns.map(
    (column, i) =>
      `${relationship.from}.${quoteColumn(column)} → ${relationship.to}.${
        quoteColumn(relationship.toColumns[i] ?? '?')
      }`,
  );
  const parts = aiContextParts(relationship.aiContext);
  return `- ${relationship.name}: ${pairs.join(', ')}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}`;
}

/**
 * `- name Type = expression: description; aka …; note: …`.
 * Source: spec/semantic-query-service.md § Resources and their fields (metrics).
 */
export function metricRow(metric: Metric): string {
  const type = metric.datatype ? ` ${metric.datatype}` : '';
  const parts = [metric.description ? oneLine(metric.description) : '', ...aiContextParts(metric.aiContext)].filter((
    p,
  ) => p !== '');
  return `- ${metric.name}${type} = ${expressionText(metric)}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
}

const titles: Record<SectionScope, string> = {
  datasets: 'Datasets',
  relationships: 'Relationships',
  metrics: 'Metrics',
};
const singular: Record<SectionScope, string> = {
  datasets: 'dataset',
  relationships: 'relationship',
  metrics: 'metric',
};

function itemsOf(model: SemanticModel, scope: SectionScope): (Dataset | Relationship | Metric)[] {
  return model[scope];
}

function allNotQueryable(scope: SectionScope, items: (Dataset | Relationship | Metric)[]): boolean {
  return scope === 'datasets' && items.every((d) => (d as Dataset).viewQuery === undefined);
}

function rowOf(scope: SectionScope, item: Dataset | Relationship | Metric, markNotQueryable: boolean): string {
  if (scope === 'datasets') return datasetRow(item as Dataset, { markNotQueryable });
  if (scope === 'relationships') return relationshipRow(item as Relationship);
  return metricRow(item as Metric);
}

function headingOf(scope: SectionScope, page: Page<unknown>, items: (Dataset | Relationship | Metric)[]): string {
  const notes: string[] = [];
  if (scope === 'relationships') notes.push('many → one');
  if (allNotQueryable(scope, items)) notes.push('none queryable yet: no view_query');
  else if (scope === 'datasets' && items.some((d) => (d as Dataset).viewQuery === undefined)) {
    notes.push(`${notQueryableMark} = not queryable yet`);
  }
  return `## ${titles[scope]} (${rangeLabel(page)})${notes.length > 0 ? ` ${notes.join('; ')}` : ''}`;
}

/**
 * The hint that names the next page of a section, or '' on the last page.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: scope, page).
 */
export function nextPageHint(scope: SectionScope, page: Page<unknown>): string {
  if (page.page >= page.pageCount) return '';
  return `*${counted(page.total - page.last, `more ${singular[scope]}`)}: get_semantic_model scope "${scope}", page ${
    page.page + 1
  }*`;
}

/**
 * One page of a section: heading with the item range, rows, and the next-page hint.
 * @returns the page and its markdown; `text` is undefined when the page is out of range (the caller says so)
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export function sectionPage(model: SemanticModel, scope: SectionScope, pageNumber: number, pageSize: number): {
  text?: string;
  page: Page<Dataset | Relationship | Metric>;
} {
  const page = pageOf(itemsOf(model, scope), pageNumber, pageSize);
  if (page.items.length === 0) return { page };
  const hint = nextPageHint(scope, page);
  const mark = !allNotQueryable(scope, page.items);
  const lines = [headingOf(scope, page, page.items), ...page.items.map((item) => rowOf(scope, item, mark))];
  if (hint) lines.push(hint);
  return { text: lines.join('\n'), page };
}
