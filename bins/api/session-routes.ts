/**
 * JSON routes of sessions (role-checked by core/session; refusals are 403/404/409/429 with a code):
 * - `POST /api/sessions` {agent, orgId?, environment, workflow, trigger?, message?, variables?} → 201 {session, turnId} (User)
 * - `GET /api/agents/:agent/sessions`, `…/environments/:env/sessions`, `…/environments/:env/workflows/:workflow/sessions` (Reader)
 * - `GET /api/sessions/:id` → {session, messages, turns, children} (Reader)
 * - `POST /api/sessions/:id/decide` {to, comment?}, `…/reply` {message}, `…/cancel` {} (User)
 * - `PATCH /api/sessions/:id/attributes` {key: value | null} (User)
 * - `GET|PUT /api/agents/:agent/environments/:env/workflows/:workflow/spend-caps[/:period]` {limitUsd | null} (Reader / Maintainer)
 * `:agent` is an agent id or slug. Bodies are checked with TypeBox (400 naming the field).
 *
 * Source: issue 7 § Operators, § Sessions and turns; spec/platform-service.md § Session facts named, § Errors.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { spendPeriods, type MessageRecord, type SessionRecord, type SpendPeriod, type TurnRecord } from '../../core/session/model.ts';
import {
  cancelSession, decideSession, listSessions, replySession, setSessionAttributes, setSpendCap, showSession, startSession,
  type SessionCaller, type SessionDeps,
} from '../../core/session/sessions.ts';
import { spendStatus } from '../../core/session/spend.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** Dependencies of the session routes. */
export interface SessionRouteDeps extends CallerRouteDeps<SessionCaller> { deps: SessionDeps }

const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });
const Value = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean()]);
const StartBody = Type.Object({
  agent: Type.String({ minLength: 1, maxLength: 100 }), orgId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  environment: Slug, workflow: Slug, trigger: Type.Optional(Slug), message: Type.Optional(Type.String({ maxLength: 100_000 })),
  variables: Type.Optional(Type.Record(Type.String(), Value)),
}, { additionalProperties: false });
const DecideBody = Type.Object({ to: Slug, comment: Type.Optional(Type.String({ maxLength: 10_000 })) }, { additionalProperties: false });
const ReplyBody = Type.Object({ message: Type.String({ minLength: 1, maxLength: 100_000 }) }, { additionalProperties: false });
const EmptyBody = Type.Object({}, { additionalProperties: false });
const AttributesBody = Type.Record(Type.String(), Type.Union([Value, Type.Null()]));
const CapBody = Type.Object({ limitUsd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]) }, { additionalProperties: false });

/** The JSON view of a session. */
export function sessionJson(s: SessionRecord) {
  return {
    id: s._id, orgId: s.orgId, agentId: s.agentId, environment: s.environment, workflow: s.workflow, buildId: s.buildId, commitId: s.commitId,
    status: s.status, state: s.state, trail: s.trail, variables: s.variables, attributes: s.attributes, pending: pendingJson(s.pending),
    usage: s.usage, error: s.error, trigger: s.trigger, depth: s.depth, ...(s.sessionKey ? { sessionKey: s.sessionKey } : {}),
    ...(s.parentId ? { parentId: s.parentId, rootId: s.rootId, dispatchId: s.dispatchId } : {}), createdAt: s.createdAt, updatedAt: s.updatedAt,
  };
}

function pendingJson(pending: SessionRecord['pending']) {
  if (!pending) return null;
  const { heldResults: _held, callId: _call, callName: _name, ...shown } = pending as Record<string, unknown>;
  return shown;
}

const turnJson = (t: TurnRecord) => ({ id: t._id, kind: t.kind, status: t.status, usage: t.usage, error: t.error, queuedAt: t.queuedAt, startedAt: t.startedAt, endedAt: t.endedAt });
const messageJson = (m: MessageRecord) => ({ seq: m.seq, state: m.state, turnId: m.turnId, at: m.at, message: m.message });
const noParse = { parse: 'none' as const };
type Id = { id: string };
type Scope = { agent: string; env: string; workflow: string };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function sessionRoutes(env: SessionRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const list = (ref: { agent: string; environment?: string; workflow?: string }, caller: SessionCaller) => listSessions(deps, caller, ref).then((found) => json({ sessions: found.map(sessionJson) }));
  return new Elysia()
    .post('/api/sessions', route(async ({ request, caller }) => {
      const body = await readJson(request, StartBody);
      const { session, turn } = await startSession(deps, caller, body);
      return json({ session: sessionJson(session), turnId: turn._id }, 201);
    }), noParse)
    .get('/api/agents/:agent/sessions', route<{ agent: string }>(async ({ params, caller }) => list({ agent: params.agent }, caller)))
    .get('/api/agents/:agent/environments/:env/sessions', route<{ agent: string; env: string }>(async ({ params, caller }) => list({ agent: params.agent, environment: params.env }, caller)))
    .get('/api/agents/:agent/environments/:env/workflows/:workflow/sessions', route<Scope>(async ({ params, caller }) => list({ agent: params.agent, environment: params.env, workflow: params.workflow }, caller)))
    .get('/api/sessions/:id', route<Id>(async ({ params, caller }) => {
      const shown = await showSession(deps, caller, params.id);
      return json({ session: sessionJson(shown.session), messages: shown.messages.map(messageJson), turns: shown.turns.map(turnJson), children: shown.children.map(sessionJson) });
    }))
    .post('/api/sessions/:id/decide', route<Id>(async ({ request, params, caller }) => json({ turnId: (await decideSession(deps, caller, params.id, await readJson(request, DecideBody)))._id })), noParse)
    .post('/api/sessions/:id/reply', route<Id>(async ({ request, params, caller }) => json({ turnId: (await replySession(deps, caller, params.id, (await readJson(request, ReplyBody)).message))._id })), noParse)
    .post('/api/sessions/:id/cancel', route<Id>(async ({ request, params, caller }) => {
      if (request.headers.has('content-type')) await readJson(request, EmptyBody);
      return json({ session: sessionJson(await cancelSession(deps, caller, params.id)) });
    }), noParse)
    .patch('/api/sessions/:id/attributes', route<Id>(async ({ request, params, caller }) => json({ attributes: await setSessionAttributes(deps, caller, params.id, await readJson(request, AttributesBody)) })), noParse)
    .get('/api/agents/:agent/environments/:env/workflows/:workflow/spend-caps', route<Scope>(async ({ params, caller }) => {
      const agent = await deps.resolveAgent(caller, { agent: params.agent });
      await deps.requireRole(caller, agent.orgId, agent.agentId, 'reader');
      return json({ caps: await spendStatus(deps, { ...agent, environment: params.env, workflow: params.workflow }) });
    }))
    .put('/api/agents/:agent/environments/:env/workflows/:workflow/spend-caps/:period', route<Scope & { period: string }>(async ({ request, params, caller }) => {
      const period = params.period as SpendPeriod;
      if (!spendPeriods.includes(period)) throw new PlatformError('invalid_argument', `Spend cap period "${params.period.slice(0, 20)}" is not one of: ${spendPeriods.join(', ')}.`, { status: 400 });
      const body = await readJson(request, CapBody);
      await setSpendCap(deps, caller, { agent: params.agent, environment: params.env, workflow: params.workflow }, period, body.limitUsd);
      return json({ period, limitUsd: body.limitUsd });
    }), noParse);
}
