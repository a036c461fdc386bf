/**
 * JSON routes of the trigger deployments of an agent environment (`:agent` is the agent's id or slug):
 * - `GET /api/agents/:agent/environments/:env/deployments` → {deployments: [{workflow, trigger, type, status
 *   (serving | error), message, connection, buildId, failuresInRow, nextRetryAt, retriesExhausted, updatedAt}],
 *   reconciliation: {reason, status (queued | running | done), requestedAt, startedAt, endedAt, serving, errors} | null}
 *   (Reader);
 * - `POST …/deployments/retry` → 202 {reconciliation} (Maintainer): a member's Retry now, which tries every
 *   deployment again (also those whose retries are exhausted); 503 `queue_unavailable` without a queue store.
 *
 * Source: spec/platform-service.md § Trigger deployment; docs/decisions.md D8 § Triggers.
 */
import { Elysia } from 'elysia';
import type { ConnectionCaller } from '../../core/connection/index.ts';
import type { DeploymentAccess } from '../../core/deployment/index.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json } from './http-helpers.ts';

/** Dependencies of the deployment routes. */
export interface DeploymentRouteDeps extends CallerRouteDeps<ConnectionCaller> {
  access: DeploymentAccess<ConnectionCaller>;
}

type Env = { agent: string; env: string };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function deploymentRoutes(env: DeploymentRouteDeps) {
  const route = callerRoutes(env);
  const base = '/api/agents/:agent/environments/:env/deployments';
  return new Elysia()
    .get(base, route<Env>(async ({ params, caller }) => json(await env.access.list(caller, params.agent, params.env))))
    .post(`${base}/retry`, route<Env>(async ({ params, caller }) =>
      json({ reconciliation: await env.access.retryNow(caller, params.agent, params.env) }, 202)), { parse: 'none' as const });
}
