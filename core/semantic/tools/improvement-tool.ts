import type { Static } from '@sinclair/typebox';
import { submitImprovement } from '../improvements.ts';
import type { RequestImprovementInput } from './tool-definitions.ts';
import { requireModel, type ToolContext, type ToolResult } from './tool-context.ts';

/**
 * request_improvement: stores the request and confirms it.
 * Source: ../shared/spec/semantic-query-service.md § Tools (request_improvement).
 */
export async function requestImprovement(ctx: ToolContext, input: Static<typeof RequestImprovementInput>): Promise<ToolResult> {
  const model = requireModel(ctx, input.modelName);
  const record = await submitImprovement(ctx.deps, { projectId: ctx.project._id, modelName: model.name, title: input.title, description: input.description, tokenId: ctx.token._id });
  return { text: `Improvement request submitted for model "${model.name}" (id ${record._id}): "${record.title}". The modellers of this project will see it.` };
}
