/**
 * JSON routes of the semantic service under /api/semantic/… (used by the `cairn semantic` commands
 * and, later, the web app): projects, sources, data uploads, publish, tokens, call log, improvements.
 *
 * Every route checks the caller's role on the project (core/semantic/project-access.ts), before any body is read:
 *
 * | Route | Needs |
 * |---|---|
 * | GET /projects (`?orgId=`) | member: lists the projects of the caller's organizations they hold Reader on |
 * | POST /projects (body `orgId`, default the caller's only organization) | `agents:create` in that organization |
 * | GET /projects/:slug, …/sources, …/changes, …/tokens, …/calls, …/calls/stats, …/calls/tokens, | Reader |
 * | …/improvements, …/improvements/list; POST …/validate | |
 * | POST …/playground-token | User |
 * | PATCH /projects/:slug, PUT …/blobs/:name, POST …/sources, …/publish, …/tokens, | Maintainer |
 * | DELETE …/tokens/:id, POST and DELETE …/improvements/:id/done | |
 *
 * A project of an organization the caller is not in answers 404 exactly as one that does not exist.
 *
 * Source: spec/semantic-query-service.md § Resources, § States and transitions; docs/decisions.md D2;
 * docs/decisions.md D17 § 1.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { GitRepo } from '../../core/ports/git-repo.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { calledTools, defaultCallLogLimit, listCalls, maxCallLogLimit } from '../../core/semantic/call-log.ts';
import type { SemanticDeps } from '../../core/semantic/deps.ts';
import { defaultImprovementsLimit, listImprovements, maxImprovementsLimit } from '../../core/semantic/improvements.ts';
import { publish } from '../../core/semantic/planes.ts';
import {
  createProjectFor, listProjectsFor, loadProject, type ProjectRole, type SemanticAuthority, type SemanticCaller,
} from '../../core/semantic/project-access.ts';
import { updateProject } from '../../core/semantic/projects.ts';
import type { ProjectRecord } from '../../core/semantic/records.ts';
import { putDataBlob, readSourceSnapshot, saveSources } from '../../core/semantic/sources.ts';
import { createToken, listTokens, revokeToken } from '../../core/semantic/tokens.ts';
import { CreateProjectBody, SaveSourcesBody, UpdateProjectBody, type ProjectDetail, type ProjectView, type PublishedView, type SavedSourcesView } from '../../core/semantic/api/projects.ts';
import { CreateTokenBody, ImprovementStatusFilter, type CreatedTokenView, type ImprovementList, type RevokedTokenView, type TokenList } from '../../core/semantic/api/access.ts';
import { errorToResponse, json, maxUploadBytes, readBody, readJson } from './http-helpers.ts';
import { NoQuery, readQuery, textParam, wholeNumberParam } from './query-params.ts';
import { improvementView, tokenView } from './semantic-access-views.ts';

/** Dependencies of the semantic routes. */
export interface SemanticRouteDeps {
  /** The stores and the organization checks (core/boot/semantic-authority.ts). */
  deps: SemanticDeps & { git: GitRepo; authority: SemanticAuthority };
  logger: Logger;
  /** The signed-in member making a request: author of the commits it makes. */
  authorOf(request: Request): { name: string; email: string };
  /** The signed-in caller of a request. @throws PlatformError `unauthorized` (401) */
  callerOf(request: Request): SemanticCaller;
  /** Runs before every handler for the caller (their organization prepared: org-routes.ts orgPreparation). */
  prepare(caller: SemanticCaller): Promise<void>;
}

/**
 * The call log's filters as query parameters (GET …/calls and GET …/calls/stats): tool, status
 * (`success` | `error`), token (a token id), from and to (a date like 2026-01-31, or an ISO-8601 instant;
 * both ends inclusive).
 */
export const callLogFilterParams = {
  tool: textParam('a tool name'),
  status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('error')], { description: '"success" or "error"' })),
  token: textParam('a token id'),
  from: textParam('a date like 2026-01-31 or an ISO-8601 instant', 40),
  to: textParam('a date like 2026-01-31 or an ISO-8601 instant', 40),
};

/**
 * Query of GET …/calls: filters, and `limit`, the newest entries answered: default 50, at most 500
 * (core/semantic/call-log.ts). Anything else is refused with 400 naming the parameter.
 */
const CallsQuery = Type.Object({
  ...callLogFilterParams,
  limit: wholeNumberParam({ minimum: 1, maximum: maxCallLogLimit, default: defaultCallLogLimit }),
}, { additionalProperties: false });
/** Query of GET /api/semantic/projects: `orgId`, one of the caller's organizations (default: all of them). */
const ListProjectsQuery = Type.Object({ orgId: textParam('an organization id') }, { additionalProperties: false });
/** Query of GET …/improvements: `status` open | done | all (default all) and `limit`, the newest requests answered: default 100, at most 500. */
const ImprovementsQuery = Type.Object({
  status: Type.Optional(ImprovementStatusFilter),
  limit: wholeNumberParam({ minimum: 1, maximum: maxImprovementsLimit, default: defaultImprovementsLimit }),
}, { additionalProperties: false });

/** What a route handler receives: the request, its path parameters, its checked query, the signed-in caller. */
export interface RouteContext<P, Q> { request: Request; params: P; query: Q; caller: SemanticCaller }

/** What a project route's handler receives: also the project, the caller's role on it checked. */
export interface ProjectContext<P, Q> extends RouteContext<P, Q> { project: ProjectRecord }

/**
 * A route handler that first checks the query string against `query` ({@link readQuery}), then resolves and
 * prepares the signed-in caller, and answers every error through {@link errorToResponse}.
 */
export function checkedRoute<P, S extends TObject>(
  env: SemanticRouteDeps, query: S, handler: (ctx: RouteContext<P, Static<S>>) => Promise<Response>,
) {
  return async ({ request, params }: { request: Request; params: P }): Promise<Response> => {
    try {
      const checked = readQuery(request, query);
      const caller = env.callerOf(request);
      await env.prepare(caller);
      return await handler({ request, params, query: checked, caller });
    } catch (error) {
      return errorToResponse(error, env.logger);
    }
  };
}

/**
 * A route on the project `:slug`: as {@link checkedRoute}, then {@link loadProject} with `role` before the
 * handler runs (before any body is read): 404 for a project that does not exist or whose organization the
 * caller is not in (the same answer), 403 `project_role_required` for a member whose role is too low.
 */
export function projectRoute<P extends { slug: string }, S extends TObject>(
  env: SemanticRouteDeps, role: ProjectRole, query: S,
  handler: (ctx: ProjectContext<P, Static<S>>) => Promise<Response>,
) {
  return checkedRoute<P, S>(env, query, async (ctx) => {
    const project = await loadProject(env.deps, ctx.caller, ctx.params.slug, role);
    return handler({ ...ctx, project });
  });
}

type Slug = { slug: string };
/** A project route's handler that takes no query parameters. */
type Handler<P = Slug> = (ctx: ProjectContext<P, Static<typeof NoQuery>>) => Promise<Response>;
type Deps = SemanticRouteDeps['deps'];

/** `POST …/sources`: saves models and data (a new revision, a commit by the member). */
const saveSourcesRoute = (env: SemanticRouteDeps): Handler => async ({ request, project }) => {
  const body = await readJson(request, SaveSourcesBody);
  const snapshot = await saveSources(env.deps, project, { models: body.models, data: body.data, replace: body.replace ?? false, deletes: body.deletes, message: body.message ?? 'Save sources', author: env.authorOf(request) });
  const saved: SavedSourcesView = { revision: snapshot.revision, commitId: snapshot.commitId, models: Object.keys(snapshot.models).sort(), data: snapshot.data.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size })) };
  return json(saved);
};

/** `POST …/publish`: builds and publishes the current sources. */
const publishRoute = (deps: Deps): Handler => async ({ project }) => {
  const build = await publish(deps, project);
  const published: PublishedView = { buildId: build.buildId, revision: build.revision, commitId: build.commitId, publishedAt: build.publishedAt, models: Object.keys(build.models).sort() };
  return json(published);
};

/** `POST …/tokens`: a new access token, its value answered once. */
const createTokenRoute = (deps: Deps): Handler => async ({ request, project }) => {
  const body = await readJson(request, CreateTokenBody);
  const { token, record } = await createToken(deps, {
    projectId: project._id, name: body.name ?? 'token', models: body.models, expiresAt: parseExpiry(body.expiresAt),
    ...(body.value === undefined ? {} : { value: body.value }),
  });
  const created: CreatedTokenView = { token, id: record._id, name: record.name, models: record.models, expiresAt: record.expiresAt?.toISOString() ?? null, displayPrefix: record.displayPrefix };
  return json(created, 201);
};

/** `GET …/calls`: the newest call log entries matching the filters, and the tools ever called. */
const callsRoute = (env: SemanticRouteDeps) => projectRoute<Slug, typeof CallsQuery>(env, 'reader', CallsQuery, async (ctx) => {
  const { project, query } = ctx;
  const filter = { tool: query.tool, status: query.status, tokenId: query.token, from: query.from, to: query.to };
  const calls = await listCalls(env.deps, project._id, { ...filter, limit: query.limit });
  return json({ calls, tools: await calledTools(env.deps, project._id) });
});

/** `GET …/improvements`: the project's improvement requests, newest first. */
const improvementsRoute = (env: SemanticRouteDeps) => projectRoute<Slug, typeof ImprovementsQuery>(env, 'reader', ImprovementsQuery, async (c) => {
  const records = await listImprovements(env.deps, c.project._id, { limit: c.query.limit, status: c.query.status });
  const list: ImprovementList = { improvements: records.map(improvementView) };
  return json(list);
});

/**
 * Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits).
 * Every handler answers errors through {@link errorToResponse}.
 */
export function semanticRoutes(env: SemanticRouteDeps) {
  const { deps } = env;
  type Named = Slug & { name: string };
  const on = <P extends Slug = Slug>(role: ProjectRole, handler: Handler<P>) =>
    projectRoute(env, role, NoQuery, handler);
  const noParse = { parse: 'none' as const };
  return new Elysia({ prefix: '/api/semantic' })
    .get('/projects', checkedRoute(env, ListProjectsQuery, async ({ caller, query }) =>
      json({ projects: (await listProjectsFor(deps, caller, query.orgId)).map(projectView) })))
    .post('/projects', checkedRoute(env, NoQuery, async ({ request, caller }) => {
      const created = await createProjectFor(deps, caller, await readJson(request, CreateProjectBody));
      return json(projectView(created), 201);
    }), noParse)
    .get('/projects/:slug', on('reader', async ({ project }) => json(await projectDetail(deps, project))))
    .patch('/projects/:slug', on('maintainer', async ({ request, project }) =>
      json(projectView(await updateProject(deps, project, await readJson(request, UpdateProjectBody))))), noParse)
    .put('/projects/:slug/blobs/:name', on<Named>('maintainer', async ({ request, params, project }) => {
      const bytes = await readBody(request, maxUploadBytes);
      return json(await putDataBlob(deps, project, params.name, bytes), 201);
    }), noParse)
    .post('/projects/:slug/sources', on('maintainer', saveSourcesRoute(env)), noParse)
    .post('/projects/:slug/publish', on('maintainer', publishRoute(deps)), noParse)
    .get('/projects/:slug/tokens', on('reader', async ({ project }) => {
      const list: TokenList = { tokens: (await listTokens(deps, project._id)).map(tokenView) };
      return json(list);
    }))
    .post('/projects/:slug/tokens', on('maintainer', createTokenRoute(deps)), noParse)
    .delete('/projects/:slug/tokens/:id', on<Slug & { id: string }>('maintainer', async ({ params, project }) => {
      await revokeToken(deps, project._id, params.id);
      const revoked: RevokedTokenView = { revoked: params.id };
      return json(revoked);
    }))
    .get('/projects/:slug/calls', callsRoute(env))
    .get('/projects/:slug/improvements', improvementsRoute(env));
}

function projectView(p: ProjectRecord): ProjectView {
  return {
    id: p._id, orgId: p.orgId, slug: p.slug, name: p.name, pageSize: p.pageSize, createdAt: p.createdAt.toISOString(),
    sourceRevision: p.sourceRevision, publishedRevision: p.publishedRevision ?? null,
    publishedAt: p.publishedAt?.toISOString() ?? null,
  };
}

async function projectDetail(deps: SemanticDeps, project: ProjectRecord): Promise<ProjectDetail> {
  const snapshot = await readSourceSnapshot(deps, project);
  return { ...projectView(project), models: Object.keys(snapshot.models).sort(), data: snapshot.data.map((d) => ({ name: d.name, size: d.size, sha256: d.sha256 })), commitId: snapshot.commitId || null };
}

function parseExpiry(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T23:59:59.999Z` : value);
  if (Number.isNaN(date.getTime())) throw new PlatformError('invalid_argument', 'expiresAt must be a date like 2026-12-31 or an ISO-8601 instant.', { status: 400 });
  return date;
}
