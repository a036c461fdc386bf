/**
 * Handlers of list_semantic_models, get_semantic_model and get_datasets: markdown digests, never YAML.
 *
 * Source: spec/semantic-query-service.md § Tools.
 */
import { renderDatasets, renderModelList, renderModelOverview, renderModelSection } from '../digest/index.ts';
import { formatProblems } from '../planes.ts';
import type { Static } from '@sinclair/typebox';
import type { GetDatasetsInput, GetSemanticModelInput } from './tool-definitions.ts';
import { prepareModelScope } from './query-tools.ts';
import { requireModel, scopedModelNames, type ToolContext, type ToolResult } from './tool-context.ts';

/** list_semantic_models: names and descriptions within the token's scopes (plus problems of scoped files). */
export function listSemanticModels(ctx: ToolContext): ToolResult {
  const scope = new Set(scopedModelNames(ctx));
  const models = ctx.plane.models.filter((m) => scope.has(m.name));
  let text = renderModelList(models.map((m) => ({ name: m.name, description: m.description })));
  const problems = ctx.plane.problems.filter((p) => scope.has(p.model));
  if (problems.length > 0) {
    text += `\n\n## Models that failed validation (not usable until fixed)\n${formatProblems(problems)}`;
  }
  if (ctx.plane.plane === 'production' && !ctx.project.publishedBuildKey) {
    text += '\n\nNothing has been published in this project yet: the production endpoint serves models after Publish.';
  }
  return { text };
}

/** get_semantic_model: overview, or one page of a section; starts preparing the model's scope for its queries. */
export function getSemanticModel(ctx: ToolContext, input: Static<typeof GetSemanticModelInput>): ToolResult {
  const model = requireModel(ctx, input.modelName);
  prepareModelScope(ctx, model);
  const pageSize = ctx.project.pageSize;
  if (!input.scope) return { text: renderModelOverview(model, { pageSize }) };
  return { text: renderModelSection(model, { scope: input.scope, page: input.page ?? 1, pageSize }) };
}

/** get_datasets: compact field lists of 1–10 datasets, each paged independently; starts preparing the scope too. */
export function getDatasets(ctx: ToolContext, input: Static<typeof GetDatasetsInput>): ToolResult {
  const model = requireModel(ctx, input.modelName);
  prepareModelScope(ctx, model);
  return { text: renderDatasets(model, input.datasets, { pageSize: ctx.project.pageSize }) };
}
