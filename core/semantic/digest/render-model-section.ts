/**
 * One page of one section of a model (get_semantic_model with scope).
 *
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: scope, page).
 */
import type { SemanticModel } from '../model.ts';
import { pastEndLine } from './markdown.ts';
import { sectionPage, type SectionScope } from './section-rows.ts';

/**
 * Options of {@link renderModelSection}.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export interface SectionOptions {
  scope: SectionScope;
  /** 1-based page number; default 1. */
  page?: number;
  /** Items per page, a whole number ≥ 1. */
  pageSize: number;
}

/**
 * Renders page `page` of a section of a model, under a line naming the model and the page.
 * @returns markdown; for an empty section or a page out of range, one line saying so and naming the last page
 * @throws PlatformError `invalid_argument` for a bad pageSize
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: scope, page).
 */
export function renderModelSection(model: SemanticModel, options: SectionOptions): string {
  const pageNumber = options.page ?? 1;
  if (model[options.scope].length === 0) return `Model ${model.name} has no ${options.scope}.`;
  const { text, page } = sectionPage(model, options.scope, pageNumber, options.pageSize);
  if (!text) return pastEndLine(`the ${options.scope} of model ${model.name}`, page);
  return `# Model ${model.name}: ${options.scope}, page ${page.page} of ${page.pageCount}\n${text}`;
}
