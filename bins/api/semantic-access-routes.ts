/**
 * JSON routes under /api/semantic/…: improvement requests of a project, listed by status and marked done or
 * reopened (docs/decisions.md D9). The token routes (MCP Access) live in semantic-routes.ts; their shapes
 * are in core/semantic/api/access.ts and their JSON views in semantic-access-views.ts.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (access token, improvement
 * request); docs/decisions.md D9 (MCP Access, Improvement requests: list, mark done).
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { defaultImprovementsLimit, listImprovements, markImprovementDone, maxImprovementsLimit } from '../../core/semantic/improvements.ts';
import { ImprovementStatusFilter, MarkImprovementDoneBody, type ImprovementList, type ImprovementView } from '../../core/semantic/api/access.ts';
import { json, parseJsonBody, readBody } from './http-helpers.ts';
import { NoQuery, wholeNumberParam } from './query-params.ts';
import { improvementView } from './semantic-access-views.ts';
import { projectRoute, type SemanticRouteDeps } from './semantic-routes.ts';

/**
 * Query of GET …/improvements/list: `status` open | done | all (default all) and `limit`, the newest
 * requests answered (default 100, at most 500). Anything else is refused with 400 naming the parameter.
 */
const ImprovementListQuery = Type.Object({
  status: Type.Optional(ImprovementStatusFilter),
  limit: wholeNumberParam({ minimum: 1, maximum: maxImprovementsLimit, default: defaultImprovementsLimit }),
}, { additionalProperties: false });

/** Largest body POST …/done reads (1 KiB): it takes nothing but an empty object. */
const maxMarkDoneBodyBytes = 1024;

/**
 * Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits):
 * - GET /api/semantic/projects/:slug/improvements/list?status=&limit= → {@link ImprovementList}
 * - POST /api/semantic/projects/:slug/improvements/:id/done (body absent or `{}`) → {@link ImprovementView}, done
 * - DELETE /api/semantic/projects/:slug/improvements/:id/done → {@link ImprovementView}, open again
 * Roles: Reader lists, Maintainer marks done and reopens (semantic-routes.ts).
 * Errors: `not_found` (404) for an unknown project (or one of an organization the caller is not in) or request,
 * `project_role_required` (403), `invalid_argument` (400) for a bad query or body,
 * `unauthorized` (401) without a signed-in caller.
 */
export function semanticAccessRoutes(env: SemanticRouteDeps) {
  const { deps } = env;
  type Params = { slug: string; id: string };
  const mark = (done: boolean) => projectRoute<Params, typeof NoQuery>(env, 'maintainer', NoQuery, async (ctx) => {
    const { request, params, caller, project } = ctx;
    if (done) await readMarkDoneBody(request);
    const by = caller.email || caller.subject;
    const marked = await markImprovementDone(deps, project._id, { id: params.id, by, done });
    return json(improvementView(marked));
  });
  type Slug = { slug: string };
  const listed = projectRoute<Slug, typeof ImprovementListQuery>(env, 'reader', ImprovementListQuery, async (ctx) => {
    const { project, query } = ctx;
    const records = await listImprovements(deps, project._id, { limit: query.limit, status: query.status });
    const list: ImprovementList = { improvements: records.map(improvementView) };
    return json(list);
  });
  return new Elysia({ name: 'semanticAccessRoutes', prefix: '/api/semantic' })
    .get('/projects/:slug/improvements/list', listed)
    .post('/projects/:slug/improvements/:id/done', mark(true), { parse: 'none' })
    .delete('/projects/:slug/improvements/:id/done', mark(false), { parse: 'none' });
}

/**
 * The optional body of POST …/done: absent, empty, or JSON `{}`.
 * @throws PlatformError `payload_too_large` (413), `invalid_json` (400), `invalid_argument` (400)
 */
async function readMarkDoneBody(request: Request): Promise<void> {
  const bytes = await readBody(request, maxMarkDoneBodyBytes);
  if (bytes.byteLength > 0) parseJsonBody(bytes, MarkImprovementDoneBody, 'send no body, or {}');
}
