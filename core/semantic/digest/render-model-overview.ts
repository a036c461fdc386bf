/**
 * The overview digest of get_semantic_model (no scope): the model's description and AI context, how to
 * query, then the first page of each section with hints naming the next page.
 *
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
import type { SemanticModel } from '../model.ts';
import { aiContextParts, oneLine } from './markdown.ts';
import { sectionPage, type SectionScope } from './section-rows.ts';

const scopes: SectionScope[] = ['datasets', 'relationships', 'metrics'];

/**
 * How to query, said once per overview.
 * Source: spec/semantic-query-service.md § What the service does (3).
 */
export const queryHowTo = 'SQL: use the quoted dataset names as tables, no schema prefix.';

/**
 * The heading block of a model: name, description, instructions and the rest of its AI context.
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model).
 */
export function modelHeader(model: SemanticModel): string[] {
  const lines = [`# Model ${model.name}`];
  if (model.description) lines.push(oneLine(model.description));
  const { instructions, ...rest } = model.aiContext ?? {};
  if (instructions) lines.push(`Instructions: ${oneLine(instructions)}`);
  const parts = aiContextParts(rest);
  if (parts.length > 0) lines.push(parts.join('; '));
  return lines;
}

/**
 * Renders the overview of a model.
 * @param options - `pageSize`: items per section page (whole number ≥ 1)
 * @returns markdown: header, query how-to, first page of each non-empty section with next-page hints
 * @throws PlatformError `invalid_argument` for a bad pageSize
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model: omitted scope gives the overview).
 */
export function renderModelOverview(model: SemanticModel, options: { pageSize: number }): string {
  const blocks = [[...modelHeader(model), queryHowTo].join('\n')];
  for (const scope of scopes) {
    const { text } = sectionPage(model, scope, 1, options.pageSize);
    if (text) blocks.push(text);
  }
  const empty = scopes.filter((scope) => model[scope].length === 0);
  if (empty.length > 0) blocks.push(`No ${empty.join(' or ')} defined.`);
  return blocks.join('\n\n');
}
