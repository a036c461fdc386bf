/**
 * Small text helpers shared by the digest renderers: one-line text, SQL identifier quoting, AI-context
 * parts, and paging of lists.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Tools.
 */
import { PlatformError } from '../../ports/platform-error.ts';
import { quoteIdentifier } from '../../ports/sql-text.ts';
import type { AIContext } from '../model.ts';

/**
 * Collapses all whitespace (newlines included) to single spaces, so a value fits one markdown line.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A dataset name as it must appear in SQL: double-quoted, inner quotes doubled (`"store_sales"`).
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: quoted table name).
 */
export function quoteTable(name: string): string {
  return quoteIdentifier(name);
}

const plainIdentifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A column or field name for SQL: bare when it is a plain identifier, else double-quoted.
 * Source: spec/semantic-query-service.md § Tools (get_datasets).
 */
export function quoteColumn(name: string): string {
  return plainIdentifier.test(name) ? name : quoteTable(name);
}

/**
 * The inline parts of an AI context: `aka` synonyms, `e.g.` examples, `note:` instructions, other keys.
 * @param examples - extra example values merged after the context's own (e.g. sample values)
 * @returns parts in that order, each one line, none empty
 * Source: spec/semantic-query-service.md § Resources and their fields (synonyms, instructions, examples).
 */
export function aiContextParts(context: AIContext | undefined, examples: string[] = []): string[] {
  const parts: string[] = [];
  const synonyms = context?.synonyms ?? [];
  const allExamples = [...new Set([...(context?.examples ?? []), ...examples])];
  if (synonyms.length > 0) parts.push(`aka ${synonyms.map(oneLine).join(', ')}`);
  if (allExamples.length > 0) parts.push(`e.g. ${allExamples.map(oneLine).join(' | ')}`);
  if (context?.instructions) parts.push(`note: ${oneLine(context.instructions)}`);
  for (const [key, value] of Object.entries(context?.other ?? {})) {
    parts.push(`${key}: ${oneLine(typeof value === 'string' ? value : JSON.stringify(value))}`);
  }
  return parts;
}

/**
 * Shortens text to at most `maxChars` at a word boundary, ending with `…` when cut.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: short description per row).
 */
export function shorten(text: string, maxChars: number): string {
  const line = oneLine(text);
  if (line.length <= maxChars) return line;
  const cut = line.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * One page of a list. `pageCount` is at least 1; `items` is empty when `page` is out of range.
 * Source: spec/semantic-query-service.md § Tools (page).
 */
export interface Page<T> {
  items: T[];
  page: number;
  pageCount: number;
  total: number;
  /** 1-based position of the first item on the page. */
  first: number;
  /** 1-based position of the last item on the page. */
  last: number;
}

/**
 * Checks a page size from configuration.
 * @throws PlatformError `invalid_argument` (400) unless `pageSize` is a whole number ≥ 1
 * Source: spec/semantic-query-service.md § Tools (items per page configured per project).
 */
export function checkPageSize(pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new PlatformError('invalid_argument', `pageSize must be a whole number of at least 1, got ${pageSize}`, {
      status: 400,
    });
  }
}

/**
 * Cuts page `page` (1-based) of `items`.
 * @param pageSize - items per page, a whole number ≥ 1
 * Source: spec/semantic-query-service.md § Tools (page: default 1, items per page configured per project).
 */
export function pageOf<T>(items: T[], page: number, pageSize: number): Page<T> {
  checkPageSize(pageSize);
  const pageCount = Math.max(1, Math.ceil(items.length / pageSize));
  const inRange = Number.isInteger(page) && page >= 1 && page <= pageCount;
  const start = inRange ? (page - 1) * pageSize : 0;
  const slice = inRange ? items.slice(start, start + pageSize) : [];
  return { items: slice, page, pageCount, total: items.length, first: start + 1, last: start + slice.length };
}

/**
 * The line for a page that does not exist, naming the last page.
 * @param what - what is paged, e.g. `the datasets of model sales`, `the fields of "orders"`
 * Source: spec/semantic-query-service.md § Tools (page).
 */
export function pastEndLine(what: string, page: Page<unknown>): string {
  if (!Number.isInteger(page.page) || page.page < 1) {
    return `Page ${page.page} does not exist: pages of ${what} run from 1 to ${page.pageCount}.`;
  }
  return `Page ${page.page} is past the end of ${what}; the last page is ${page.pageCount}.`;
}

/**
 * `1-25 of 60` when the list spans several pages, `60` when one page holds everything.
 * Source: spec/semantic-query-service.md § Tools (page).
 */
export function rangeLabel(page: Page<unknown>): string {
  if (page.pageCount === 1) return `${page.total}`;
  return page.first === page.last ? `${page.first} of ${page.total}` : `${page.first}-${page.last} of ${page.total}`;
}

/**
 * `1 field`, `2 fields`: a count with its noun, `singular` + `s` unless the count is 1.
 * Source: spec/semantic-query-service.md § Tools.
 */
export function counted(count: number, singular: string): string {
  return `${count} ${singular}${count === 1 ? '' : 's'}`;
}
