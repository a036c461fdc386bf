/**
 * Wires trigger deployments (core/deployment) to hosted agents (core/agent), incoming connections
 * (core/connection), the MCP tools of a connection and the job queue: what a reconciliation computes (the desired
 * deployments of the environment's current published build), the dispatcher's consumer, and the environments a
 * release pass reconciles. The queue, the requests and the deployments routes' use cases are core/deployment's.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Incoming connection (row status); docs/decisions.md
 * D8 § Triggers, § Connections.
 */
import { agentCollections, type EnvironmentRecord } from '../agent/hosting.ts';
import type { PlatformConfig } from '../config/config-model.ts';
import { connectionCollections, type ConnectionRecord } from '../connection/model.ts';
import { mcpToolsOf } from '../connection/mcp-tools.ts';
import {
  applyDeployments,
  DEPLOYMENT_QUEUE,
  type DeploymentDeps,
  type DeploymentPlan,
  desiredDeployments,
  type EnvironmentRef,
  type PassCounts,
  reconciliationConcurrency,
  reconciliationDeps,
  runReconciliation,
} from '../deployment/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { publishedEnvironment } from '../session/published-environment.ts';

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
  parts: DesiredParts & DeploymentDeps,
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
  parts: DesiredParts & DeploymentDeps,
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
