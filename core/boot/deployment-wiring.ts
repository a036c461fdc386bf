/**
 * Wires trigger deployments (core/deployment) to hosted agents (core/agent), incoming connections
 * (core/connection), the MCP tools of a connection and the job queue: the queue reconciliations run on, what a
 * reconciliation computes (the desired deployments of the environment's current published build), the
 * dispatcher's consumer and sweep, the requests after a succeeded environment operation, and the API's hooks for
 * the Connections page (row status; a connection change is a credential change).
 *
 * Source: spec/platform-service.md § Trigger deployment, § Incoming connection (row status); docs/decisions.md
 * D8 § Triggers, § Connections.
 */
import { agentCollections, type EnvironmentRecord, type OperationRecord } from '../agent/hosting.ts';
import type { PlatformConfig } from '../config/config-model.ts';
import {
  type ConnectionCaller,
  connectionCollections,
  type ConnectionDeps,
  type ConnectionRecord,
} from '../connection/model.ts';
import {
  applyDeployments,
  type ConnectionDeploymentStatus,
  connectionStatuses,
  type DeploymentPlan,
  type DeploymentRecord,
  desiredDeployments,
  ensureDeploymentIndexes,
  type EnvironmentRef,
  listDeployments,
  notUsed,
  type PassCounts,
  type ReconciliationDeps,
  reconciliationOf,
  type ReconciliationReason,
  type ReconciliationRecord,
  requestReconciliation,
  runReconciliation,
} from '../deployment/index.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { mcpToolsOf } from '../connection/mcp-tools.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { publishedEnvironment } from '../session/published-environment.ts';

/** The queue reconciliations run on (every dispatcher consumes it). Source: spec § Processes (trigger queues). */
export const DEPLOYMENT_QUEUE = 'trigger-deployments';

/** Reconciliations one dispatcher runs at once (one environment's runs never overlap: its request's compare-and-set).
 */
export const reconciliationConcurrency = 2;

/** The stores a reconciliation request needs. */
export interface DeploymentStoreParts {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/** What computing an environment's desired deployments reads. */
export interface DesiredParts {
  docs: DocumentStore;
  builds: ReturnType<typeof publishedWorkflows>;
  /** Collections some configured service offers ({@link offeredCollectionsOf}). */
  offeredCollections: string[];
}

/** The collections the config's services offer: each service's `collection`, else its `id`. Source: spec § Rules 15. */
export function offeredCollectionsOf(config: Pick<PlatformConfig, 'services'>): string[] {
  return [...new Set(config.services.map((s) => s.collection ?? s.id))];
}

/**
 * ReconciliationDeps over the stores and the queue: a request's job is `reconcile-<requestId>` on
 * {@link DEPLOYMENT_QUEUE} (no `:`). Without a queue store a request is recorded and not queued.
 */
export function reconciliationDeps(parts: DeploymentStoreParts & { queue?: JobQueue }): ReconciliationDeps {
  const { queue } = parts;
  return {
    docs: parts.docs,
    clock: parts.clock,
    ids: parts.ids,
    enqueue: async (env, requestId) => {
      if (queue) {
        await queue.add(DEPLOYMENT_QUEUE, 'reconcile', { agentId: env.agentId, environment: env.environment }, {
          jobId: `reconcile-${requestId.replace(/:/g, '-')}`,
        });
      }
    },
  };
}

/**
 * The desired deployments of `env`: every deploying trigger of its current published build, checked against
 * the environment's connections, the offered collections and the tools its MCP connections can list.
 * @returns the plan without its reset flag (buildId null and no deployments when nothing is published)
 */
export async function desiredOfEnvironment(
  parts: DesiredParts,
  env: EnvironmentRef,
): Promise<Omit<DeploymentPlan, 'reset'>> {
  const published = await publishedEnvironment(parts, env.agentId, env.environment);
  if (!published) return { buildId: null, desired: [] };
  const { env: record, agent } = published;
  const connections = await parts.docs.collection<ConnectionRecord>(connectionCollections.connections).find({
    agentId: env.agentId,
    environment: env.environment,
  });
  const triggers = Object.values(agent.workflows).flatMap((w) => w.triggers);
  const mcpConnections = [
    ...new Set(
      triggers.filter((t) => t.type === 'mcp' && typeof t.fields.connection === 'string').map((t) =>
        String(t.fields.connection)
      ),
    ),
  ];
  const desired = desiredDeployments({
    environment: env.environment,
    workflows: Object.keys(agent.workflows),
    triggers,
    offeredCollections: parts.offeredCollections,
    connections: connections.map((c) => ({ identifier: c.identifier, protocol: c.protocol })),
    mcpRefusals: mcpConnections.flatMap((identifier) => mcpToolsOf(agent, identifier).unlisted),
  });
  return { buildId: record.published.buildId, desired };
}

/** The reconciliation a dispatcher runs for `env`: the desired deployments applied to its records. */
export function reconcilerOf(
  parts: DesiredParts & DeploymentStoreParts,
): (env: EnvironmentRef, reset: boolean) => Promise<PassCounts> {
  return async (env, reset) => applyDeployments(parts, env, { ...(await desiredOfEnvironment(parts, env)), reset });
}

/**
 * Consumes {@link DEPLOYMENT_QUEUE}: each job runs its environment's queued reconciliation (a job whose request
 * another dispatcher already ran does nothing). The dispatcher does not reconcile at startup.
 * @param log - one line per reconciliation run (counts, never a message's values beyond names)
 */
export function consumeReconciliations(
  queue: JobQueue,
  parts: DesiredParts & DeploymentStoreParts,
  log: (line: string) => void,
): { stop(): Promise<void> } {
  const deps = reconciliationDeps({ ...parts, queue });
  const reconcile = reconcilerOf(parts);
  return queue.consume(DEPLOYMENT_QUEUE, async (job) => {
    const env = job.data as EnvironmentRef;
    const ended = await runReconciliation(deps, { agentId: env.agentId, environment: env.environment }, reconcile);
    if (ended) {
      log(
        `[triggers] reconciled environment ${ended.environment} of agent ${ended.agentId} (${ended.reason}): ` +
          `${ended.serving} serving, ${ended.errors} in error`,
      );
    }
  }, { concurrency: reconciliationConcurrency });
}

/** The reason and environment a succeeded operation reconciles (discard changes no published build). */
export function reconciliationAfter(
  op: Pick<OperationRecord, 'kind' | 'status' | 'agentId' | 'environment' | 'input'>,
): { env: EnvironmentRef; reason: ReconciliationReason } | undefined {
  if (op.status !== 'succeeded') return undefined;
  if (op.kind === 'publish') return { env: { agentId: op.agentId, environment: op.environment }, reason: 'publish' };
  if (op.kind === 'restore') return { env: { agentId: op.agentId, environment: op.environment }, reason: 'restore' };
  if (op.kind === 'promote' && op.input.to) {
    return { env: { agentId: op.agentId, environment: op.input.to }, reason: 'promotion' };
  }
  return undefined;
}

/** Requests the reconciliation a succeeded publish, restore or promotion asks for (nothing for others). */
export async function requestAfterOperation(
  deps: ReconciliationDeps,
  op: Pick<OperationRecord, 'kind' | 'status' | 'agentId' | 'environment' | 'input'>,
): Promise<void> {
  const after = reconciliationAfter(op);
  if (after) await requestReconciliation(deps, after.env, after.reason);
}

/** The API's hooks of the Connections page: each row's status, and a connection change as a credential change. */
export interface ConnectionDeploymentHooks {
  /** The row status of every connection of an environment (identifier → status; absent: Not used). */
  statusOf(env: EnvironmentRef): Promise<(identifier: string) => ConnectionDeploymentStatus>;
  /** Requests a reconciliation of `env` for a credential change (create, edit, token regeneration, delete). */
  changed(env: EnvironmentRef): Promise<void>;
}

/** {@link ConnectionDeploymentHooks} over the stores and the queue. */
export function connectionDeploymentHooks(
  parts: DeploymentStoreParts & { queue?: JobQueue },
): ConnectionDeploymentHooks {
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

/** The role-checked use cases of the deployments routes. */
export interface DeploymentAccess {
  /** The deployments of an environment and its reconciliation request (Reader). @throws scope errors (403/404) */
  list(
    caller: ConnectionCaller,
    agent: string,
    environment: string,
  ): Promise<{ deployments: DeploymentView[]; reconciliation: ReconciliationView | null }>;
  /**
   * A member's Retry now (Maintainer): requests a reconciliation that tries every deployment again.
   * @throws PlatformError `queue_unavailable` (503) without a queue store; scope errors (403/404)
   */
  retryNow(caller: ConnectionCaller, agent: string, environment: string): Promise<ReconciliationView>;
}

/** {@link DeploymentAccess} with core/connection's scope check (the agent by id or slug, the caller's role on it). */
export function deploymentAccess(
  parts: DeploymentStoreParts & { queue?: JobQueue; scope: ConnectionDeps['scope'] },
): DeploymentAccess {
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

/**
 * The environments a release pass reconciles: every environment (of agent `agentId` when given), by agent and
 * name, with whether it has a published build.
 */
export async function environmentsToReconcile(
  docs: DocumentStore,
  agentId?: string,
): Promise<(EnvironmentRef & { published: boolean })[]> {
  const envs = await docs.collection<EnvironmentRecord>(agentCollections.environments).find(
    agentId === undefined ? {} : { agentId },
    { sort: { agentId: 1, name: 1 } },
  );
  return envs.map((e) => ({ agentId: e.agentId, environment: e.name, published: e.published !== null }));
}
