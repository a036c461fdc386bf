/**
 * The digest of get_datasets: per requested dataset its quoted table name, description, AI context, keys
 * and one page of its compact field list (each dataset paged independently).
 *
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
import { PlatformError } from '../../ports/platform-error.ts';
import type { Dataset, SemanticModel } from '../model.ts';
import { fieldLine, showsExpression } from './field-line.ts';
import {
  aiContextParts,
  checkPageSize,
  counted,
  oneLine,
  type Page,
  pageOf,
  pastEndLine,
  quoteColumn,
  quoteTable,
  rangeLabel,
} from './markdown.ts';
import { notQueryableMark } from './section-rows.ts';

/**
 * One dataset asked for: its name and the page of its fields (default 1).
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
export interface DatasetRequest {
  name: string;
  page?: number;
}

/**
 * Datasets per get_datasets call, inclusive.
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
export const datasetsPerCall = { min: 1, max: 10 } as const;

/**
 * Most dataset names listed after an unknown name.
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
export const maxNamesListed = 50;

/**
 * Said once when any listed field shows an expression.
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
export const expressionNote = '`name = expr`: the field is computed by expr; use expr in SQL.';

/**
 * Said once when any listed dataset has no view_query.
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits.
 */
export const notQueryableNote = `${notQueryableMark} = not queryable until the modeller adds one.`;

/**
 * Finds a dataset by exact name, else by case-insensitive name (as the query engine resolves identifiers).
 * Source: spec/semantic-query-service.md § Tools (get_datasets).
 */
export function findDataset(model: SemanticModel, name: string): Dataset | undefined {
  return model.datasets.find((d) => d.name === name) ??
    model.datasets.find((d) => d.name.toLowerCase() === name.toLowerCase());
}

function keyLines(dataset: Dataset): string[] {
  const lines: string[] = [];
  const columns = (keys: string[]) => keys.map(quoteColumn).join(', ');
  if (dataset.primaryKey?.length) lines.push(`PK: ${columns(dataset.primaryKey)}`);
  const primary = (dataset.primaryKey ?? []).join('\u0000');
  const unique = (dataset.uniqueKeys ?? []).filter((key) => key.join('\u0000') !== primary && key.length > 0);
  if (unique.length > 0) lines.push(`Unique: ${unique.map((key) => `(${columns(key)})`).join(', ')}`);
  return lines;
}

function aboutLines(dataset: Dataset): string[] {
  const lines: string[] = [];
  if (dataset.description) lines.push(oneLine(dataset.description));
  const { instructions, ...rest } = dataset.aiContext ?? {};
  if (instructions) lines.push(`Instructions: ${oneLine(instructions)}`);
  const parts = aiContextParts(rest);
  if (parts.length > 0) lines.push(parts.join('; '));
  return [...lines, ...keyLines(dataset)];
}

function heading(dataset: Dataset, page: Page<unknown>): string {
  const range = page.pageCount === 1 ? '' : ` (fields ${rangeLabel(page)})`;
  const mark = dataset.viewQuery === undefined ? ` ${notQueryableMark}` : '';
  return `## ${quoteTable(dataset.name)}${range}${mark}`;
}

function nextFieldsHint(dataset: Dataset, page: Page<unknown>): string[] {
  if (page.page >= page.pageCount) return [];
  return [
    `*${counted(page.total - page.last, 'more field')}: get_datasets {name: ${JSON.stringify(dataset.name)}, page: ${
      page.page + 1
    }}*`,
  ];
}

function datasetBlock(
  dataset: Dataset,
  pageNumber: number,
  pageSize: number,
): { text: string; showsExpression: boolean } {
  const page = pageOf(dataset.fields, pageNumber, pageSize);
  if (dataset.fields.length === 0) {
    return {
      text: [heading(dataset, page), ...aboutLines(dataset), 'No fields defined.'].join('\n'),
      showsExpression: false,
    };
  }
  if (page.items.length === 0) {
    return {
      text: `## ${quoteTable(dataset.name)}\n${pastEndLine(`the fields of ${quoteTable(dataset.name)}`, page)}`,
      showsExpression: false,
    };
  }
  const about = page.page === 1 ? aboutLines(dataset) : [];
  const lines = [heading(dataset, page), ...about, ...page.items.map(fieldLine), ...nextFieldsHint(dataset, page)];
  return { text: lines.join('\n'), showsExpression: page.items.some(showsExpression) };
}

function unknownDatasetLine(model: SemanticModel, name: string): string {
  const names = model.datasets.slice(0, maxNamesListed).map((d) => quoteTable(d.name));
  const rest = model.datasets.length - names.length;
  const more = rest > 0 ? ` and ${rest} more (get_semantic_model scope "datasets")` : '';
  return `Unknown dataset ${JSON.stringify(name)}: model ${model.name} has the datasets ${names.join(', ')}${more}.`;
}

/**
 * Renders the requested datasets of a model, in request order; an unknown name gets a line listing the
 * model's datasets and the others are still rendered.
 * @param requests - 1 to 10 datasets, each with an optional 1-based field page (default 1)
 * @param options - `pageSize`: fields per page (whole number ≥ 1)
 * @returns markdown, one block per request
 * @throws PlatformError `invalid_argument` (400) for fewer than 1 or more than 10 requests, or a bad pageSize
 * Source: spec/semantic-query-service.md § Tools (get_datasets), § Limits (datasets per get_datasets call).
 */
export function renderDatasets(
  model: SemanticModel,
  requests: DatasetRequest[],
  options: { pageSize: number },
): string {
  if (requests.length < datasetsPerCall.min || requests.length > datasetsPerCall.max) {
    throw new PlatformError(
      'invalid_argument',
      `get_datasets takes 1 to 10 datasets per call, got ${requests.length}`,
      { status: 400 },
    );
  }
  checkPageSize(options.pageSize);
  let anyNotQueryable = false;
  let anyExpression = false;
  const blocks = requests.map((request) => {
    const dataset = findDataset(model, request.name);
    if (!dataset) return unknownDatasetLine(model, request.name);
    const block = datasetBlock(dataset, request.page ?? 1, options.pageSize);
    anyNotQueryable ||= dataset.viewQuery === undefined;
    anyExpression ||= block.showsExpression;
    return block.text;
  });
  const notes = [anyNotQueryable ? notQueryableNote : '', anyExpression ? expressionNote : ''].filter((n) => n !== '');
  if (notes.length > 0) blocks.push(notes.join('\n'));
  return blocks.join('\n\n');
}
