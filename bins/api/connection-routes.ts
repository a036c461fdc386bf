/**
 * JSON routes of incoming connections of an agent environment (`:agent` is the agent's id or slug):
 * - `POST /api/agents/:agent/environments/:env/connections` {identifier, protocol, auth, oidc?, origins?, rate?}
 *   → 201 {connection, url, token?} (Maintainer; `token` in bearer mode, shown this once);
 * - `GET …/connections` → {connections: [...]} and `GET …/connections/:identifier` → {connection, url} (Reader;
 *   never the token; `url` is `<APP_BASE_URL or the request's origin>/api/<agui|mcp|webhooks>/<address>`);
 * - `PATCH …/connections/:identifier` {auth?, oidc?, origins?, rate?} (Maintainer; the edit takes effect on the
 *   environment's next publish and is shown meanwhile as `pendingChange`; switching to bearer returns a new token
 *   once; another protocol is 409 `protocol_fixed`);
 * - `POST …/connections/:identifier/regenerate-token` → {connection, url, token} (Maintainer; the old token stops at once);
 * - `DELETE …/connections/:identifier` → 204 (Maintainer; the address stays reserved for the identifier).
 * Each connection carries its row status for the Connections page (core/deployment's connectionStatuses):
 * `status` `serving` | `not_used` | `error`, `servingCount` (serving deployments naming it) and `statusMessage`
 * (the failing deployment's message, else null). A create, edit, token regeneration or delete requests a
 * reconciliation of the environment's trigger deployments (a credential change).
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication,
 * § Errors; docs/decisions.md D8 § Connections. Shapes: core/connection/api-views.ts.
 */
import { Elysia } from 'elysia';
import {
  createConnection, deleteConnection, getConnection, listConnections, regenerateToken, updateConnection,
  type ConnectionCaller, type ConnectionDeps, type ConnectionRecord,
} from '../../core/connection/index.ts';
import { notUsed, type ConnectionDeploymentHooks, type ConnectionDeploymentStatus } from '../../core/deployment/index.ts';
import {
  ChangeConnectionBody, CreateConnectionBody, type ConnectionAnswer, type ConnectionListAnswer, type ConnectionView, type PendingChangeView,
} from '../../core/connection/api-views.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** Dependencies of the connection routes. */
export interface ConnectionRouteDeps extends CallerRouteDeps<ConnectionCaller> {
  deps: ConnectionDeps;
  /** APP_BASE_URL, when set: the base of endpoint URLs (else the request's origin). */
  appBaseUrl?: string;
  /** Row status and credential-change requests (core/deployment/deployment-access.ts); absent: every row `not_used`. */
  deployments?: ConnectionDeploymentHooks;
}

/** Path segment of each protocol's endpoint. */
const endpointPath = { agui: 'agui', mcp: 'mcp', webhooks: 'webhooks', webhook: 'webhooks' } as const;

/** The endpoint URL of `connection`. */
export function endpointUrl(base: string, connection: Pick<ConnectionRecord, 'protocol' | 'address'>): string {
  return `${base.replace(/\/+$/, '')}/api/${endpointPath[connection.protocol]}/${connection.address}`;
}

/** A connection as answered: never the token digest; `row` is its Connections-page status. */
function connectionView(c: ConnectionRecord, base: string, row: ConnectionDeploymentStatus = notUsed): ConnectionView {
  return {
    identifier: c.identifier, agentId: c.agentId, environment: c.environment, protocol: c.protocol, auth: c.auth,
    ...(c.oidc ? { oidc: c.oidc } : {}), origins: c.origins, rate: c.rate, url: endpointUrl(base, c),
    status: row.status, servingCount: row.servingCount, statusMessage: row.statusMessage,
    pendingChange: pendingView(c.pending),
    createdAt: c.createdAt.toISOString(), createdBy: c.createdBy, updatedAt: c.updatedAt.toISOString(),
  };
}

/** An edit waiting for the environment's next publish (rule 6), as answered: never its token digest. */
function pendingView(pending: ConnectionRecord['pending']): PendingChangeView | null {
  if (!pending) return null;
  return {
    auth: pending.auth, ...(pending.oidc ? { oidc: pending.oidc } : {}), origins: pending.origins, rate: pending.rate,
    changedAt: pending.changedAt.toISOString(), changedBy: pending.changedBy, takesEffect: 'on the next publish, restore or promotion of this environment',
  };
}

const noParse = { parse: 'none' as const };
type Env = { agent: string; env: string };
type One = Env & { identifier: string };
/** The connection a route's path names. */
const refOf = (params: One) => ({ agent: params.agent, environment: params.env, identifier: params.identifier });

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function connectionRoutes(env: ConnectionRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const baseOf = (request: Request) => env.appBaseUrl ?? new URL(request.url).origin;
  const rowsOf = async (c: Pick<ConnectionRecord, 'agentId' | 'environment'>) =>
    env.deployments ? env.deployments.statusOf({ agentId: c.agentId, environment: c.environment }) : () => notUsed;
  /** A credential change: the environment's deployments are reconciled (a failure to ask is logged; the change stands). */
  const changed = async (c: Pick<ConnectionRecord, 'agentId' | 'environment'>) => {
    await env.deployments?.changed({ agentId: c.agentId, environment: c.environment })
      .catch((error: Error) => env.logger.warn({ err: error.message }, 'could not request a trigger reconciliation after a connection change'));
  };
  const answer = async (request: Request, result: { connection: ConnectionRecord; token?: string }, status = 200) => {
    const view = connectionView(result.connection, baseOf(request), (await rowsOf(result.connection))(result.connection.identifier));
    return json({ connection: view, url: view.url, ...(result.token ? { token: result.token } : {}) } satisfies ConnectionAnswer, status);
  };
  const changedAnswer = async (request: Request, result: { connection: ConnectionRecord; token?: string }, status = 200) => {
    await changed(result.connection);
    return answer(request, result, status);
  };
  const base = '/api/agents/:agent/environments/:env/connections';
  return new Elysia()
    .post(base, route<Env>(async ({ request, params, caller }) => {
      const body = await readJson(request, CreateConnectionBody);
      return changedAnswer(request, await createConnection(deps, caller, {
        agent: params.agent, environment: params.env, input: body,
      }), 201);
    }), noParse)
    .get(base, route<Env>(async ({ request, params, caller }) => {
      const connections = await listConnections(deps, caller, params.agent, params.env);
      const rows = connections.length > 0 ? await rowsOf(connections[0]) : () => notUsed;
      return json({ connections: connections.map((c) => connectionView(c, baseOf(request), rows(c.identifier))) } satisfies ConnectionListAnswer);
    }))
    .get(`${base}/:identifier`, route<One>(async ({ request, params, caller }) =>
      answer(request, { connection: await getConnection(deps, caller, refOf(params)) })))
    .patch(`${base}/:identifier`, route<One>(async ({ request, params, caller }) => {
      const body = await readJson(request, ChangeConnectionBody);
      return changedAnswer(request, await updateConnection(deps, caller, refOf(params), body));
    }), noParse)
    .post(`${base}/:identifier/regenerate-token`, route<One>(async ({ request, params, caller }) =>
      changedAnswer(request, await regenerateToken(deps, caller, refOf(params)))), noParse)
    .delete(`${base}/:identifier`, route<One>(async ({ params, caller }) => {
      await changed(await deleteConnection(deps, caller, refOf(params)));
      return new Response(null, { status: 204 });
    }), noParse);
}
