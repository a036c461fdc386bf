/**
 * JSON routes of sessions (role-checked by core/session; refusals are 403/404/409/429 with a code):
 * - `POST /api/sessions` {agent, orgId?, environment, workflow, trigger?, message?, variables?} → 201 {session, turnId} (User)
 * - `GET /api/agents/:agent/sessions`, `…/environments/:env/sessions`, `…/environments/:env/workflows/:workflow/sessions` (Reader)
 * - `GET /api/sessions?agent=&env=&workflow=&status=&from=&to=&offset=&limit=` → {@link SessionListView}: root sessions of
 *   every agent the caller reads (or of `agent`), newest first, paged (Reader)
 * - `GET /api/sessions/:id` → {@link SessionDetailView} {session, messages, turns, children} (Reader)
 * - `GET /api/sessions/:id/timeline` → {@link SessionTimelineView}: turns with times, steps and waits (Reader; D25)
 * - `POST /api/sessions/:id/decide` {to, comment?}, `…/reply` {message}, `…/cancel` {} (User)
 * - `PATCH /api/sessions/:id/attributes` {key: value | null} (User)
 * - `GET|PUT /api/agents/:agent/environments/:env/workflows/:workflow/spend-caps[/:period]` {limitUsd | null} (Reader / Maintainer)
 * `:agent` is an agent id or slug among the caller's organizations (core/agent's one resolver; 409 `ambiguous_agent`
 * for a slug in several of them). A session or agent the caller may not see (another organization's, another
 * member's chat without sessions:personal) is 404 with no identifier. A child session is decided, replied to and
 * cancelled only through its parent (409 `decide_through_parent`, `reply_through_parent`, `cancel_through_parent`).
 * Bodies are checked with TypeBox (400 naming the field).
 *
 * Source: docs/decisions.md D7 § Operators, § Sessions and turns; spec/platform-service.md § Session facts named, §
 * Errors.
 */
import { SpendCapBody, type SpendCapsAnswer } from '../../core/session/spend-views.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { agentCollections, type AgentRecord } from '../../core/agent/hosting-model.ts';
import { readableSessionScope, type ReadableSessions } from '../../core/boot/agent-authority.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import {
  messageView, sessionView, turnView, type SessionDetailView, type SessionListView, type SessionView, type TurnQueuedView,
} from '../../core/session/session-views.ts';
import { showTimeline, type SessionTimelineView } from '../../core/session/timeline-views.ts';
import { sessionStatuses } from '../../core/session/model.ts';
import { spendPeriods, type SpendPeriod } from '../../core/session/spend-model.ts';
import { findSessions, MAX_SESSION_PAGE } from '../../core/session/session-list.ts';
import {
  cancelSession, decideSession, listSessions, replySession, setSessionAttributes, showSession,
} from '../../core/session/sessions.ts';
import { setSpendCap } from '../../core/session/spend-cap-setting.ts';
import { startSession } from '../../core/session/session-start.ts';
import type { SessionCaller, SessionDeps } from '../../core/session/session-access.ts';
import { spendStatus } from '../../core/session/spend.ts';
import { type CallerContext, callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { errorToResponse, json, readJson } from './http-helpers.ts';
import { readQuery, textParam, wholeNumberParam } from './query-params.ts';

/** Dependencies of the session routes. */
export interface SessionRouteDeps extends CallerRouteDeps<SessionCaller> {
  deps: SessionDeps;
  /**
   * Agents the caller holds Reader (or more) on, in every organization it belongs to, and where it holds
   * sessions:personal; default: from the org and agent collections.
   */
  readableAgents?(caller: SessionCaller): Promise<ReadableSessions>;
}

const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });
const Value = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean()]);
const StartBody = Type.Object({
  agent: Type.String({ minLength: 1, maxLength: 100 }), orgId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  environment: Slug, workflow: Slug, trigger: Type.Optional(Slug), message: Type.Optional(Type.String({ maxLength: 100_000 })),
  variables: Type.Optional(Type.Record(Type.String(), Value)),
}, { additionalProperties: false });
// `fields`: the decision's declared fields by name, checked by takeDecision (docs/decisions.md D26 § 2).
const DecideBody = Type.Object({ to: Slug, comment: Type.Optional(Type.String({ maxLength: 10_000 })), fields: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown())) }, { additionalProperties: false });
const ReplyBody = Type.Object({ message: Type.String({ minLength: 1, maxLength: 100_000 }) }, { additionalProperties: false });
const EmptyBody = Type.Object({}, { additionalProperties: false });
const AttributesBody = Type.Record(Type.String(), Type.Union([Value, Type.Null()]));

/** The JSON view of a session (see core/session/session-views.ts). */
export const sessionJson = sessionView;

const DateParam = (what: string) => Type.Optional(Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$', maxLength: 40,
  description: `${what}: a date (YYYY-MM-DD, UTC) or an ISO 8601 time with a zone`,
}));
/** The query of `GET /api/sessions`. */
const ListQuery = Type.Object({
  agent: textParam('an agent id or slug', 100), env: textParam('an environment name', 63), workflow: textParam('a workflow slug', 63),
  status: Type.Optional(Type.Union(sessionStatuses.map((s) => Type.Literal(s)), { description: `one of ${sessionStatuses.join(', ')}` })),
  from: DateParam('the first day (inclusive)'), to: DateParam('the last day (inclusive; a time: exclusive)'),
  offset: wholeNumberParam({ minimum: 0, maximum: 100_000, default: 0 }), limit: wholeNumberParam({ minimum: 1, maximum: MAX_SESSION_PAGE, default: 50 }),
}, { additionalProperties: false });

/** A `from`/`to` parameter as a time: a plain date is the start of that UTC day (`endOfDay`: of the next day). */
function dateOf(text: string | undefined, name: string, endOfDay: boolean): Date | undefined {
  if (text === undefined) return undefined;
  const plain = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const at = new Date(plain ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(at.getTime())) throw new PlatformError('invalid_argument', `Query parameter "${name}" is not a real date; give YYYY-MM-DD.`, { status: 400 });
  return plain && endOfDay ? new Date(at.getTime() + 86_400_000) : at;
}

/** `views` with their agents' slugs (`agentSlug`), from the agent collection. */
async function withSlugs(deps: SessionDeps, views: SessionView[]): Promise<SessionView[]> {
  const ids = [...new Set(views.map((v) => v.agentId))];
  if (ids.length === 0) return views;
  const agents = await deps.docs.collection<AgentRecord>(agentCollections.agents).find({ _id: { $in: ids } });
  const slugs = new Map(agents.map((a) => [a._id, a.slug]));
  return views.map((v) => (slugs.has(v.agentId) ? { ...v, agentSlug: slugs.get(v.agentId) } : v));
}

const noParse = { parse: 'none' as const };
type Id = { id: string };
type Scope = { agent: string; env: string; workflow: string };
/** A handler of a signed-in session route with path parameters `P`. */
type Handler<P> = (ctx: CallerContext<SessionCaller, P>) => Promise<Response>;

/** `GET /api/sessions`: root sessions of every agent the caller reads (or of `agent`), newest first, paged. */
function listAcrossRoute(env: SessionRouteDeps) {
  const { deps } = env;
  const readable = env.readableAgents ?? ((caller: SessionCaller) => readableSessionScope(deps, caller));
  const listAcross = async (request: Request, query: Static<typeof ListQuery>, caller: SessionCaller): Promise<Response> => {
    let scope: ReadableSessions;
    if (query.agent) {
      const agent = await deps.resolveAgent(caller, { agent: query.agent });
      const everyChat = await deps.seesEveryChat(caller, agent.orgId);
      scope = { agentIds: [agent.agentId], everyChatIn: everyChat ? [agent.orgId] : [] };
    } else scope = await readable(caller);
    const page = await findSessions(deps, caller, {
      ...scope, environment: query.env, workflow: query.workflow, status: query.status,
      from: dateOf(query.from, 'from', false), to: dateOf(query.to, 'to', true), offset: query.offset, limit: query.limit,
    });
    const answer: SessionListView = { sessions: await withSlugs(deps, page.sessions.map(sessionView)), hasMore: page.hasMore };
    return json(answer);
  };
  return async ({ request }: { request: Request }) => {
    try {
      const query = readQuery(request, ListQuery);
      const caller = env.callerOf(request);
      await env.prepare(caller);
      return await listAcross(request, query, caller);
    } catch (error) {
      return errorToResponse(error, env.logger);
    }
  };
}

/** `POST /api/sessions`: starts a session (User). */
const startRoute = (deps: SessionDeps): Handler<unknown> => async ({ request, caller }) => {
  const body = await readJson(request, StartBody);
  const { session, turn } = await startSession(deps, caller, body);
  return json({ session: sessionJson(session), turnId: turn._id }, 201);
};

/** `GET /api/sessions/:id`: the session, its messages, turns and children (Reader). */
const showRoute = (deps: SessionDeps): Handler<Id> => async ({ params, caller }) => {
  const shown = await showSession(deps, caller, params.id);
  const [session] = await withSlugs(deps, [sessionView(shown.session)]);
  const answer: SessionDetailView = { session, messages: shown.messages.map(messageView), turns: shown.turns.map(turnView), children: shown.children.map(sessionView) };
  return json(answer);
};

/** `POST /api/sessions/:id/cancel` {} (User). */
const cancelRoute = (deps: SessionDeps): Handler<Id> => async ({ request, params, caller }) => {
  if (request.headers.has('content-type')) await readJson(request, EmptyBody);
  return json({ session: sessionView(await cancelSession(deps, caller, params.id)) } satisfies { session: SessionView });
};

/** `GET …/workflows/:workflow/spend-caps`: the workflow's caps and what is spent (Reader). */
const spendCapsRoute = (deps: SessionDeps): Handler<Scope> => async ({ params, caller }) => {
  const agent = await deps.resolveAgent(caller, { agent: params.agent });
  const caps = await spendStatus(deps, { ...agent, environment: params.env, workflow: params.workflow });
  return json({ caps: caps.map((c) => ({ ...c, periodStart: c.periodStart.toISOString() })) } satisfies SpendCapsAnswer);
};

/** `PUT …/workflows/:workflow/spend-caps/:period` {limitUsd | null} (Maintainer). */
const setSpendCapRoute = (deps: SessionDeps): Handler<Scope & { period: string }> => async ({ request, params, caller }) => {
  const period = params.period as SpendPeriod;
  if (!spendPeriods.includes(period)) throw new PlatformError('invalid_argument', `Spend cap period "${params.period.slice(0, 20)}" is not one of: ${spendPeriods.join(', ')}.`, { status: 400 });
  const body = await readJson(request, SpendCapBody);
  const workflow = { agent: params.agent, environment: params.env, workflow: params.workflow };
  await setSpendCap(deps, caller, workflow, { period, limitUsd: body.limitUsd });
  return json({ period, limitUsd: body.limitUsd });
};

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function sessionRoutes(env: SessionRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const list = (ref: { agent: string; environment?: string; workflow?: string }, caller: SessionCaller) => listSessions(deps, caller, ref).then((found) => json({ sessions: found.map(sessionJson) }));
  const caps = '/api/agents/:agent/environments/:env/workflows/:workflow/spend-caps';
  return new Elysia()
    .get('/api/sessions', listAcrossRoute(env))
    .post('/api/sessions', route(startRoute(deps)), noParse)
    .get('/api/agents/:agent/sessions', route<{ agent: string }>(async ({ params, caller }) => list({ agent: params.agent }, caller)))
    .get('/api/agents/:agent/environments/:env/sessions', route<{ agent: string; env: string }>(async ({ params, caller }) => list({ agent: params.agent, environment: params.env }, caller)))
    .get('/api/agents/:agent/environments/:env/workflows/:workflow/sessions', route<Scope>(async ({ params, caller }) => list({ agent: params.agent, environment: params.env, workflow: params.workflow }, caller)))
    .get('/api/sessions/:id', route<Id>(showRoute(deps)))
    .get('/api/sessions/:id/timeline', route<Id>(async ({ params, caller }) => {
      const answer: SessionTimelineView = await showTimeline(deps, caller, params.id);
      return json(answer);
    }))
    .post('/api/sessions/:id/decide', route<Id>(async ({ request, params, caller }) => json({ turnId: (await decideSession(deps, caller, params.id, await readJson(request, DecideBody)))._id } satisfies TurnQueuedView)), noParse)
    .post('/api/sessions/:id/reply', route<Id>(async ({ request, params, caller }) => json({ turnId: (await replySession(deps, caller, params.id, (await readJson(request, ReplyBody)).message))._id } satisfies TurnQueuedView)), noParse)
    .post('/api/sessions/:id/cancel', route<Id>(cancelRoute(deps)), noParse)
    .patch('/api/sessions/:id/attributes', route<Id>(async ({ request, params, caller }) => json({ attributes: await setSessionAttributes(deps, caller, params.id, await readJson(request, AttributesBody)) })), noParse)
    .get(caps, route<Scope>(spendCapsRoute(deps)))
    .put(`${caps}/:period`, route<Scope & { period: string }>(setSpendCapRoute(deps)), noParse);
}
