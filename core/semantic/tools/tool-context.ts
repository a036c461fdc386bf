import type { QueryEngine } from '../../ports/query-engine.ts';
import type { RateLimiter } from '../../ports/rate-limiter.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { CallLogWriter } from '../call-log-writer.ts';
import type { SemanticDeps } from '../deps.ts';
import type { SemanticModel } from '../model.ts';
import { type AssembledPlane, formatProblems } from '../planes.ts';
import type { ProjectRecord, TokenRecord } from '../records.ts';
import { modelsInScope } from '../tokens.ts';

/** What a tool handler may use: the stores, the engine, and the caller's project, token and plane. */
export interface ToolContext {
  deps: SemanticDeps;
  engine: QueryEngine;
  project: ProjectRecord;
  token: TokenRecord;
  plane: AssembledPlane;
  /** Where the call is recorded once answered. */
  callLog: CallLogWriter;
  /**
   * Counts request_improvement per token: {@link improvementsPerTokenPerDay} per 24 h window, keyed
   * `improvements:<tokenId>` (docs/decisions.md D18 § 4).
   */
  improvementLimiter: RateLimiter;
  /** Aborted when the caller's HTTP client has gone: a running query is stopped (docs/decisions.md D18 § 2). */
  signal?: AbortSignal;
}

/** Improvement requests one token may submit per 24-hour window (20); the 21st is a tool error. */
export const improvementsPerTokenPerDay = 20;

/** What a tool returns: text for the agent, structured content when the tool has an output schema. */
export interface ToolResult {
  text: string;
  structured?: Record<string, unknown>;
}

/** Names of the plane's models (valid or not) within the token's scope. */
export function scopedModelNames(ctx: ToolContext): string[] {
  const names = [...ctx.plane.models.map((m) => m.name), ...ctx.plane.problems.map((p) => p.model)];
  return modelsInScope(ctx.token, [...new Set(names)].sort());
}

/**
 * The model `name` if it exists in this plane and is within the token's scope.
 * @throws PlatformError `model_not_found` naming only models in scope; `model_invalid` listing the model's problems
 */
export function requireModel(ctx: ToolContext, name: string): SemanticModel {
  const inScope = scopedModelNames(ctx);
  if (!inScope.includes(name)) {
    const list = inScope.length > 0 ? inScope.join(', ') : 'none';
    throw new PlatformError(
      'model_not_found',
      `Model "${name}" is not available to this token. Models you can use: ${list}.`,
    );
  }
  const model = ctx.plane.models.find((m) => m.name === name);
  if (!model) {
    const problems = ctx.plane.problems.filter((p) => p.model === name);
    throw new PlatformError(
      'model_invalid',
      `Model "${name}" failed validation and cannot be used until it is fixed:\n${formatProblems(problems)}`,
    );
  }
  return model;
}
