import type { Static } from '@sinclair/typebox';
import { PlatformError } from '../../ports/platform-error.ts';
import { submitImprovement } from '../improvements.ts';
import type { RequestImprovementInput } from './tool-definitions.ts';
import { improvementsPerTokenPerDay, requireModel, type ToolContext, type ToolResult } from './tool-context.ts';

/**
 * request_improvement: stores the request and confirms it; a token may submit {@link improvementsPerTokenPerDay}
 * per 24-hour window (counted by `ctx.improvementLimiter`), a further one is refused and stores nothing.
 * @throws PlatformError `model_not_found` / `model_invalid` (see requireModel); `improvement_quota_exceeded` (429)
 *   saying when the next request is accepted
 *
 * Source: spec/semantic-query-service.md § Tools (request_improvement); docs/decisions.md D18 § 4.
 */
export async function requestImprovement(
  ctx: ToolContext,
  input: Static<typeof RequestImprovementInput>,
): Promise<ToolResult> {
  const model = requireModel(ctx, input.modelName);
  const quota = await ctx.improvementLimiter.consume(`improvements:${ctx.token._id}`);
  if (!quota.allowed) {
    const hours = Math.floor(quota.retryAfterSeconds / 3600);
    const minutes = Math.ceil((quota.retryAfterSeconds % 3600) / 60);
    const message = 'Improvement request not stored: this token has submitted ' +
      `${improvementsPerTokenPerDay} in the current 24-hour window, the most allowed. Try again in ${hours} h ` +
      `${minutes} min (${quota.retryAfterSeconds} s); the modellers already see the earlier ones.`;
    throw new PlatformError('improvement_quota_exceeded', message, { status: 429 });
  }
  const record = await submitImprovement(ctx.deps, {
    projectId: ctx.project._id,
    modelName: model.name,
    title: input.title,
    description: input.description,
    tokenId: ctx.token._id,
  });
  return {
    text: `Improvement request submitted for model "${model.name}" (id ${record._id}): "${record.title}". The ` +
      `modellers of this project will see it.`,
  };
}
