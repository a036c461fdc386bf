/**
 * JSON views of the MCP Access and improvement-request records (times as ISO-8601 strings), answered by
 * semantic-access-routes.ts and semantic-routes.ts as the shapes of core/semantic/api/access.ts.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (access token, improvement
 * request); docs/decisions.md D9 (MCP Access, Improvement requests).
 */
import type { ImprovementView, TokenView } from '../../core/semantic/api/access.ts';
import type { ImprovementRecord } from '../../core/semantic/records.ts';
import type { TokenSummary } from '../../core/semantic/tokens.ts';

/** An improvement request as the web app receives it (times as ISO-8601, done state spelled out). */
export function improvementView(record: ImprovementRecord): ImprovementView {
  return {
    id: record._id,
    modelName: record.modelName,
    title: record.title,
    description: record.description,
    tokenId: record.tokenId,
    createdAt: record.createdAt.toISOString(),
    status: record.doneAt ? 'done' : 'open',
    doneAt: record.doneAt?.toISOString() ?? null,
    doneBy: record.doneAt ? record.doneBy ?? null : null,
  };
}

/** A token as listed (GET …/tokens), times as ISO-8601 and absent ones left out. */
export function tokenView(summary: TokenSummary): TokenView {
  return {
    id: summary.id,
    name: summary.name,
    displayPrefix: summary.displayPrefix,
    models: summary.models,
    createdAt: summary.createdAt.toISOString(),
    ...(summary.expiresAt ? { expiresAt: summary.expiresAt.toISOString() } : {}),
    ...(summary.revokedAt ? { revokedAt: summary.revokedAt.toISOString() } : {}),
    ...(summary.lastUsedAt ? { lastUsedAt: summary.lastUsedAt.toISOString() } : {}),
    events30d: summary.events30d,
    state: summary.state,
  };
}
