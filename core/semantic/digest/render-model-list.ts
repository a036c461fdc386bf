/**
 * The digest of list_semantic_models: one line per model with its description.
 *
 * Source: spec/semantic-query-service.md § Tools (list_semantic_models).
 */
import { oneLine } from './markdown.ts';

/**
 * Renders the models a token may reach as `- name: description` lines under a count heading.
 * @param models - models already filtered by the token's scopes, in the order to show
 * @returns markdown; a single sentence when the list is empty
 * Source: spec/semantic-query-service.md § Tools (list_semantic_models).
 */
export function renderModelList(models: { name: string; description?: string }[]): string {
  if (models.length === 0) return 'No semantic models are available to this token.';
  const lines = models.map((m) => `- ${m.name}${m.description ? `: ${oneLine(m.description)}` : ''}`);
  return [
    `# Semantic models (${models.length})`,
    ...lines,
    'Use get_semantic_model with a modelName for its datasets, relationships and metrics.',
  ].join('\n');
}
