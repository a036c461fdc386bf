/**
 * The role-checked use cases of the deployments routes (a member's list and Retry now), the shapes the API answers,
 * and the API's hooks of the Connections page (each row's status; a connection change is a credential change).
 * The caller's scope check is passed in (core/connection's, wired in core/boot): this domain uses no other.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Incoming connection (row status); docs/decisions.md
 * D8 § Triggers, § Connections.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { type ConnectionDeploymentStatus, connectionStatuses, notUsed } from './connection-status.ts';
import {
  type DeploymentDeps,
  type DeploymentRecord,
  ensureDeploymentIndexes,
  type EnvironmentRef,
  type ReconciliationRecord,
} from './model.ts';
import { listDeployments } from './reconcile.ts';
import { reconciliationDeps, reconciliationOf, requestReconciliation } from './requests.ts';

/** The API's hooks of the Connections page: each row's status, and a connection change as a credential change. */
export interface ConnectionDeploymentHooks {
  /** The row status of every connection of an environment (identifier → status; absent: Not used). */
  statusOf(env: EnvironmentRef): Promise<(identifier: string) => ConnectionDeploymentStatus>;
  /** Requests a reconciliation of `env` for a credential change (create, edit, token regeneration, delete). */
  changed(env: EnvironmentRef): Promise<void>;
}

/** {@link ConnectionDeploymentHooks} over the stores and the queue. */
export function connectionDeploymentHooks(parts: DeploymentDeps & { queue?: JobQueue }): ConnectionDeploymentHooks {
  const deps = reconciliationDeps(parts);
  let indexed: Promise<void> | undefined;
  return {
    statusOf: async (env) => {
      const statuses = connectionStatuses(await listDeployments(parts, env));
      return (identifier) => statuses.get(identifier) ?? notUsed;
    },
    changed: async (env) => {
      indexed ??= ensureDeploymentIndexes(parts);
      await indexed;
      await requestReconciliation(deps, env, 'credential');
    },
  };
}

/** A deployment as the API answers it (no store keys or sweep marks). */
export type DeploymentView = Pick<
  DeploymentRecord,
  | 'workflow'
  | 'trigger'
  | 'type'
  | 'status'
  | 'message'
  | 'connection'
  | 'buildId'
  | 'failuresInRow'
  | 'nextRetryAt'
  | 'retriesExhausted'
  | 'updatedAt'
>;
/** A reconciliation request as the API answers it. */
export type ReconciliationView = Pick<
  ReconciliationRecord,
  'reason' | 'status' | 'requestedAt' | 'startedAt' | 'endedAt' | 'serving' | 'errors'
>;

const deploymentView = (d: DeploymentRecord): DeploymentView => ({
  workflow: d.workflow,
  trigger: d.trigger,
  type: d.type,
  status: d.status,
  message: d.message,
  connection: d.connection,
  buildId: d.buildId,
  failuresInRow: d.failuresInRow,
  nextRetryAt: d.nextRetryAt,
  retriesExhausted: d.retriesExhausted,
  updatedAt: d.updatedAt,
});
const reconciliationView = (r: ReconciliationRecord): ReconciliationView => ({
  reason: r.reason,
  status: r.status,
  requestedAt: r.requestedAt,
  startedAt: r.startedAt,
  endedAt: r.endedAt,
  serving: r.serving,
  errors: r.errors,
});

/**
 * Resolves the agent (by id or slug) and environment a caller names and checks the caller's role on it
 * (core/connection's `ConnectionDeps.scope`). @throws scope errors (403/404)
 */
export type DeploymentScope<Caller> = (
  caller: Caller,
  agent: string,
  environment: string,
  role: 'reader' | 'maintainer',
) => Promise<{ agentId: string; environment: string }>;

/** The role-checked use cases of the deployments routes. */
export interface DeploymentAccess<Caller> {
  /** The deployments of an environment and its reconciliation request (Reader). @throws scope errors (403/404) */
  list(
    caller: Caller,
    agent: string,
    environment: string,
  ): Promise<{ deployments: DeploymentView[]; reconciliation: ReconciliationView | null }>;
  /**
   * A member's Retry now (Maintainer): requests a reconciliation that tries every deployment again.
   * @throws PlatformError `queue_unavailable` (503) without a queue store; scope errors (403/404)
   */
  retryNow(caller: Caller, agent: string, environment: string): Promise<ReconciliationView>;
}

/** {@link DeploymentAccess} with the given scope check (the agent by id or slug, the caller's role on it). */
export function deploymentAccess<Caller>(
  parts: DeploymentDeps & { queue?: JobQueue; scope: DeploymentScope<Caller> },
): DeploymentAccess<Caller> {
  const deps = reconciliationDeps(parts);
  return {
    list: async (caller, agent, environment) => {
      const scope = await parts.scope(caller, agent, environment, 'reader');
      const env = { agentId: scope.agentId, environment: scope.environment };
      const request = await reconciliationOf(parts, env);
      return {
        deployments: (await listDeployments(parts, env)).map(deploymentView),
        reconciliation: request ? reconciliationView(request) : null,
      };
    },
    retryNow: async (caller, agent, environment) => {
      const scope = await parts.scope(caller, agent, environment, 'maintainer');
      if (!parts.queue) {
        throw new PlatformError(
          'queue_unavailable',
          'No queue store is configured (QUEUE_URL), so no reconciliation can run; set QUEUE_URL or run the ' +
            'all-in-one container.',
          { status: 503 },
        );
      }
      return reconciliationView(
        await requestReconciliation(deps, { agentId: scope.agentId, environment: scope.environment }, 'retry_now'),
      );
    },
  };
}
