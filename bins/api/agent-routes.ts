/**
 * JSON routes of hosted agents and their environments:
 * - `POST /api/orgs/:org/agents` {slug} (agents:create), `GET /api/orgs/:org/agents`, `GET /api/agents/:agent`;
 * - `GET /api/agents/:agent/environments/:env` (draft and published commit, counts, the agent's newest builds and
 *   the published workflows: core/agent/api-views.ts EnvironmentDetail; Reader);
 * - `GET /api/agents/:agent/environments/:env/files` (Maintainer): the draft's files `{files: [{path, text}]}`;
 * - `PUT /api/agents/:agent/environments/:env/files` {files: [{path, text}], replace?, deletes?, message?}
 *   (Maintainer): sent as `application/json` (1 MiB) or, for a larger batch, the same JSON as
 *   `application/octet-stream` (an upload: 20 MiB, as the request rules give);
 * - `POST …/publish`, `…/restore` ({buildId?}), `…/discard`, `…/promote` ({to}) (Maintainer): queued
 *   environment operations. The role, the environment and the body are checked at once (403/404/400);
 *   then the answer is `202 {operation}` (status `queued`), or 503 `queue_unavailable` without a queue store;
 * - `PATCH /api/agents/:agent/environments/:env` {evaluationGate} (Maintainer): the environment's settings; answers
 *   the environment (core/agent/environment-settings.ts);
 * - `GET /api/agents/:agent/operations/:id` (Reader): the operation, ending `succeeded` with `result` (the
 *   environment after it) or `failed` with `error` (a refused publish: `agent_invalid` with located `problems`).
 * `:agent` is the agent's id or slug among the caller's organizations (core/agent/agent-access.ts, the one
 * resolver; 409 `ambiguous_agent` for a slug in several of them). An agent the caller may not see (another
 * organization's, or one they hold no role on) is 404 `agent_not_found` naming no identifier; a lower role than
 * needed is 403 `agent_role_required` (core/boot/agent-authority.ts, the one check). docs/routes.md lists the roles.
 * No route takes query parameters; bodies are checked with TypeBox (400 naming the field).
 *
 * Source: spec/platform-service.md (What the service does; § Limits; § Errors); docs/decisions.md D7 § Agents
 * and environments, § Operators.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import {
  agentCollections, createAgent, environmentView, getAgent, listAgents, operationView, readBuild, readEnvironment, readDraft, readOperation, readPublishedAgent, requestOperation, saveDraft, setEnvironmentSettings,
  type AgentCaller, type AgentDeps, type AgentRecord, type BuildRecord, type EnqueueOperation, type EnvironmentView, type OperationRequest, type OperationView,
} from '../../core/agent/hosting.ts';
import {
  maxListedBuilds, PromoteBody, RestoreBody,
  type AgentDetail, type AgentListAnswer, type AgentView, type EnvironmentDetail, type EnvironmentSummary, type OperationAnswer,
} from '../../core/agent/api-views.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, maxUploadBytes, parseJsonBody, readBody, readJson } from './http-helpers.ts';

/** Dependencies of the agent routes. */
export interface AgentRouteDeps extends CallerRouteDeps<AgentCaller> {
  deps: AgentDeps;
  /** Puts an environment operation on its queue; undefined without a queue store (operations then answer 503). */
  enqueueOperation: EnqueueOperation | undefined;
}

const Slug = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', description: `a slug of at most ${max} lowercase letters and digits joined by hyphens` });
/** `name`: the agent's name (default: the template's AGENTS.md name); 1–100 characters, not only spaces. */
const CreateAgentBody = Type.Object({
  slug: Slug(60), name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })),
}, { additionalProperties: false });
const FilesBody = Type.Object({
  files: Type.Array(Type.Object({ path: Type.String({ minLength: 1, maxLength: 300 }), text: Type.String() }, { additionalProperties: false }), { maxItems: 2000 }),
  replace: Type.Optional(Type.Boolean()),
  deletes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 2000 })),
  message: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: false });
const EmptyBody = Type.Object({}, { additionalProperties: false });
const SettingsBody = Type.Object({ evaluationGate: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** Reads an optional JSON body (none, or `{}`) against `schema`. */
async function optionalJson<S extends TSchema>(request: Request, schema: S): Promise<Static<S>> {
  const hasBody = request.headers.get('content-length') !== '0' && request.headers.has('content-type');
  return (hasBody ? await readJson(request, schema) : {}) as Static<S>;
}

/** The files batch: JSON as `application/json` (1 MiB) or as an upload (`application/octet-stream`, 20 MiB). */
async function readFilesBody(request: Request): Promise<Static<typeof FilesBody>> {
  if (/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) return readJson(request, FilesBody);
  return parseJsonBody(await readBody(request, maxUploadBytes), FilesBody, 'send {"files": [{"path", "text"}], …}');
}

function agentView(agent: AgentRecord): AgentView {
  return { id: agent._id, orgId: agent.orgId, slug: agent.slug, name: agent.name, description: agent.description, createdAt: agent.createdAt.toISOString() };
}

/** An environment view with ISO times (core/agent/api-views.ts). */
function environmentJson(env: Omit<EnvironmentView, 'evaluationGate'> & { evaluationGate?: boolean }): EnvironmentSummary {
  const p = env.published;
  return {
    agentId: env.agentId, name: env.name, draft: { commitId: env.draft.commitId, savedAt: env.draft.savedAt.toISOString() },
    published: p ? { buildId: p.buildId, commitId: p.commitId, counts: p.counts, publishedAt: p.publishedAt.toISOString(), publishedBy: p.publishedBy } : null,
    evaluationGate: env.evaluationGate === true,
  };
}

/** An operation view with ISO times (core/agent/api-views.ts). */
function operationJson(op: OperationView): OperationAnswer {
  return { operation: {
    ...op, result: op.result ? environmentJson(op.result) : null,
    queuedAt: op.queuedAt.toISOString(), startedAt: op.startedAt?.toISOString() ?? null, endedAt: op.endedAt?.toISOString() ?? null,
  } };
}

/**
 * The environment with the agent's newest builds (for Restore) and the published plane's workflow slugs
 * (for spend caps). The caller's Reader role was checked by readEnvironment.
 */
async function environmentDetail(deps: AgentDeps, env: EnvironmentView): Promise<EnvironmentDetail> {
  const builds = await deps.docs.collection<BuildRecord>(agentCollections.builds)
    .find({ agentId: env.agentId, candidate: { $ne: true } }, { sort: { publishedAt: -1 }, limit: maxListedBuilds });
  const current = env.published ? builds.find((b) => b._id === env.published?.buildId) : undefined;
  const workflows = current ? Object.keys(readPublishedAgent(await readBuild(deps, { buildId: current._id, objectKey: current.objectKey })).workflows).sort() : [];
  return {
    ...environmentJson(env), workflows,
    builds: builds.map((b) => ({ id: b._id, environment: b.environment, commitId: b.commitId, counts: b.counts, publishedAt: b.publishedAt.toISOString(), publishedBy: b.publishedBy })),
  };
}

const noParse = { parse: 'none' as const };
type Org = { org: string };
type Env = { agent: string; env: string };
type Op = { agent: string; id: string };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function agentRoutes(env: AgentRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const operation = async (caller: AgentCaller, params: Env, request: OperationRequest) =>
    json(operationJson(operationView(await requestOperation(deps, caller, {
      agentId: params.agent, envName: params.env, request, enqueue: env.enqueueOperation,
    }))), 202);
  return new Elysia()
    .post('/api/orgs/:org/agents', route<Org>(async ({ request, params, caller }) => {
      const body = await readJson(request, CreateAgentBody);
      const agent = await createAgent(deps, caller, { orgId: params.org, slug: body.slug, name: body.name });
      return json(agentView(agent), 201);
    }), noParse)
    .get('/api/orgs/:org/agents', route<Org>(async ({ params, caller }) => json({ agents: (await listAgents(deps, caller, params.org)).map(agentView) } satisfies AgentListAnswer)))
    .get('/api/agents/:agent', route<{ agent: string }>(async ({ params, caller }) => {
      const { agent, environments, role } = await getAgent(deps, caller, params.agent);
      return json({ ...agentView(agent), environments: environments.map((e) => environmentJson(environmentView(e))), you: { role } } satisfies AgentDetail);
    }))
    .get('/api/agents/:agent/environments/:env', route<Env>(async ({ params, caller }) => json(await environmentDetail(deps, await readEnvironment(deps, caller, params.agent, params.env)))))
    .patch('/api/agents/:agent/environments/:env', route<Env>(async ({ request, params, caller }) => {
      const settings = await readJson(request, SettingsBody);
      const changed = await setEnvironmentSettings(deps, caller, { agentId: params.agent, envName: params.env, settings });
      return json(environmentJson(changed));
    }), noParse)
    // The draft's files (Maintainer): the Design tab's viewer and `cairn agent validate --agent --env`.
    .get('/api/agents/:agent/environments/:env/files', route<Env>(async ({ params, caller }) => json({ files: await readDraft(deps, caller, { agentId: params.agent, envName: params.env }) })))
    .put('/api/agents/:agent/environments/:env/files', route<Env>(async ({ request, params, caller }) => {
      const body = await readFilesBody(request);
      const change = { files: body.files, replace: body.replace ?? false, ...(body.deletes ? { deletes: body.deletes } : {}), ...(body.message ? { message: body.message } : {}) };
      return json(await saveDraft(deps, caller, { agentId: params.agent, envName: params.env, change }));
    }), noParse)
    .post('/api/agents/:agent/environments/:env/publish', route<Env>(async ({ request, params, caller }) => {
      await optionalJson(request, EmptyBody);
      return operation(caller, params, { kind: 'publish', input: {} });
    }), noParse)
    .post('/api/agents/:agent/environments/:env/restore', route<Env>(async ({ request, params, caller }) => {
      const body = await optionalJson(request, RestoreBody);
      return operation(caller, params, { kind: 'restore', input: body.buildId === undefined ? {} : { buildId: body.buildId } });
    }), noParse)
    .post('/api/agents/:agent/environments/:env/discard', route<Env>(async ({ request, params, caller }) => {
      await optionalJson(request, EmptyBody);
      return operation(caller, params, { kind: 'discard', input: {} });
    }), noParse)
    .post('/api/agents/:agent/environments/:env/promote', route<Env>(async ({ request, params, caller }) => {
      const body = await readJson(request, PromoteBody);
      return operation(caller, params, { kind: 'promote', input: { to: body.to } });
    }), noParse)
    .get('/api/agents/:agent/operations/:id', route<Op>(async ({ params, caller }) => json(operationJson(operationView(await readOperation(deps, caller, params.agent, params.id))))));
}
