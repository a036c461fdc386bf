/**
 * JSON routes under /api/semantic/…: the playground's and Monitoring's routes (docs/decisions.md D9).
 * - POST …/projects/:slug/playground-token: the signed-in member's playground token (201 {@link PlaygroundTokenView}).
 * - GET …/projects/:slug/calls/stats: calls, errors and execute_query latency per time bucket ({@link CallStatsView}),
 *   with the filters of GET …/calls (tool, status, token, from, to) and `bucketMinutes`.
 * - GET …/projects/:slug/calls/tokens: names of every token of the project, playground ones included ({@link CallTokenList}).
 * Roles: User for the playground token (it queries every model), Reader for the others (semantic-routes.ts).
 * Errors: 401 `unauthorized` without a signed-in member, 404 `not_found` for an unknown project (or one of an
 * organization the caller is not in), 403 `project_role_required`, 400
 * `invalid_argument` naming a bad query parameter.
 *
 * Source: spec/semantic-query-service.md § What the service does 2 and 5, § Resources (call log entry); docs/decisions.md D9.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { callStats } from '../../core/semantic/call-log.ts';
import { callLogTokenNames, mintPlaygroundToken } from '../../core/semantic/tokens.ts';
import type { CallStatsView, CallTokenList } from '../../core/semantic/api/monitoring.ts';
import type { PlaygroundTokenView } from '../../core/semantic/api/playground.ts';
import { json } from './http-helpers.ts';
import { NoQuery } from './query-params.ts';
import { callLogFilterParams, projectRoute, type SemanticRouteDeps } from './semantic-routes.ts';

/** Query of GET …/calls/stats: the filters of GET …/calls and the bucket width. */
const StatsQuery = Type.Object({
  ...callLogFilterParams,
  bucketMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080, description: 'a whole number from 1 to 10080' })),
}, { additionalProperties: false });

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function semanticPlaygroundRoutes(env: SemanticRouteDeps) {
  const { deps } = env;
  type Slug = { slug: string };
  return new Elysia({ name: 'semanticPlaygroundRoutes', prefix: '/api/semantic' })
    .post('/projects/:slug/playground-token', projectRoute<Slug, typeof NoQuery>(env, 'user', NoQuery, async (ctx) => {
      const { caller, project } = ctx;
      const { token, record } = await mintPlaygroundToken(deps, project._id, { subject: caller.subject, email: caller.email });
      const view: PlaygroundTokenView = { token, expiresAt: record.expiresAt!.toISOString(), tokenId: record._id };
      return json(view, 201);
    }), { parse: 'none' })
    .get('/projects/:slug/calls/stats', projectRoute<Slug, typeof StatsQuery>(
      env, 'reader', StatsQuery, async (ctx) => {
      const { project, query } = ctx;
      const stats = await callStats(deps, project._id, { tool: query.tool, status: query.status, tokenId: query.token, from: query.from, to: query.to, bucketMinutes: query.bucketMinutes });
      const view: CallStatsView = { ...stats, from: stats.from.toISOString(), to: stats.to.toISOString(), buckets: stats.buckets.map((b) => ({ ...b, start: b.start.toISOString() })) };
      return json(view);
    }))
    .get('/projects/:slug/calls/tokens', projectRoute<Slug, typeof NoQuery>(env, 'reader', NoQuery, async (ctx) => {
      const { project } = ctx;
      const view: CallTokenList = { tokens: await callLogTokenNames(deps, project._id) };
      return json(view);
    }));
}
