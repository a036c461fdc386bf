/**
 * The design agent's routes (member sign-in only; Maintainer or Administrator of the agent, everyone else 404):
 * - `POST /api/agents/:agent/environments/:env/design`: a design chat through the AG-UI protocol (a RunAgentInput in,
 *   an event stream out, as `/api/agui`); `threadId` continues the caller's own chat; counted by the per-person
 *   ceiling (route-classes.ts). 400 without a user message, 409 while its turn runs, 503 `design_agent_not_configured`
 * - `GET /api/agents/:agent/environments/:env/design`: whether a design agent is configured (its model; else what to
 *   set) and the caller's chats on the environment, newest first
 * - `GET /api/agents/:agent/environments/:env/design/changes`: the draft's unpublished changes (core/agent
 *   draftChanges), the diff a person reads before publishing
 * - `GET /api/orgs/:org/design-spend`: the design agent's spend in the organization (organization:manage)
 *
 * Source: issue "The design agent" § Front doors, § Runtime; docs/decisions.md D21.
 */
import { Elysia } from 'elysia';
import { type AgentCaller, draftChanges } from '../../core/agent/hosting.ts';
import type { AguiStreamDeps } from '../../core/connection/agui-stream.ts';
import { designAgentNotConfigured, type DesignRunDeps, designTarget, startDesignRun } from '../../core/design/design-chats.ts';
import { designSpend, listDesignChats } from '../../core/design/design-views.ts';
import { requirePermission } from '../../core/org/index.ts';
import { aguiStreamResponse, parseRunInput } from './agui-routes.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, maxJsonBytes, readBody } from './http-helpers.ts';

/** What the design routes need. */
export interface DesignRouteDeps extends CallerRouteDeps<AgentCaller> {
  /** Design runs: the stores, the hosting use cases, the design queue and the designAgent model (absent: none). */
  runs: DesignRunDeps;
  /** What the AG-UI stream reads. */
  stream: AguiStreamDeps;
}

type Env = { agent: string; env: string };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits, per-person ceiling). */
export function designRoutes(env: DesignRouteDeps) {
  const route = callerRoutes(env);
  const { runs } = env;
  return new Elysia()
    .post('/api/agents/:agent/environments/:env/design', route<Env>(async ({ request, params, caller, server }) => {
      const input = parseRunInput(await readBody(request, maxJsonBytes));
      const run = await startDesignRun(runs, {
        caller, agent: params.agent, envName: params.env, input,
      });
      return aguiStreamResponse(env.stream, run, { request, server, headers: {}, logger: env.logger, what: 'design chat' });
    }), { parse: 'none' })
    .get('/api/agents/:agent/environments/:env/design', route<Env>(async ({ params, caller }) => {
      const chats = await listDesignChats(runs.hosting, caller, { agent: params.agent, envName: params.env });
      const configured = runs.designModel
        ? { configured: true, model: runs.designModel }
        : { configured: false, setup: designAgentNotConfigured().message };
      return json({ ...configured, chats });
    }))
    .get('/api/agents/:agent/environments/:env/design/changes', route<Env>(async ({ params, caller }) => {
      const { agent, env: environment } = await designTarget(runs.hosting, caller, { agent: params.agent, envName: params.env });
      return json(await draftChanges(runs.hosting, caller, { agentId: agent._id, envName: environment.name }));
    }))
    .get('/api/orgs/:org/design-spend', route<{ org: string }>(async ({ params, caller }) => {
      await requirePermission(runs.hosting, caller, params.org, 'organization:manage');
      return json(await designSpend(runs.hosting, params.org));
    }));
}
