/**
 * Trigger deployments (public edge of `core/deployment`): the desired deployments of a published build and their
 * checks, the records and their retry policy, reconciliation requests and runs, the sweep, and the row status of
 * incoming connections.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations, § Incoming connection
 * (row status), § Errors, § Limits.
 */
import { deploymentCollections, type DeploymentDeps } from './model.ts';

export * from './model.ts';
export {
  MAX_AUTOMATIC_RETRIES,
  planAfterFailure,
  RETRY_BASE_DELAY_MS,
  retryDelayMs,
  type RetryPlan,
} from './retry-policy.ts';
export {
  type DeploymentTrigger,
  deploys,
  type DesiredDeployment,
  desiredDeployments,
  type DesiredInput,
  protocolOfTrigger,
  scheduleProblem,
} from './desired.ts';
export {
  applyDeployments,
  type DeploymentPlan,
  deploymentsOf,
  listDeployments,
  type ReconcileCounts,
} from './reconcile.ts';
export {
  type EnqueueReconciliation,
  type PassCounts,
  type ReconciliationDeps,
  reconciliationOf,
  reconciliationsOf,
  requestReconciliation,
  runReconciliation,
} from './requests.ts';
export { DEPLOYMENT_SWEEP_INTERVAL_MS, LOST_RECONCILIATION_MS, sweepDeployments, type SweepOutcome } from './sweep.ts';
export {
  type ConnectionDeploymentStatus,
  type ConnectionRowStatus,
  connectionStatuses,
  notUsed,
} from './connection-status.ts';
export { passLine, type ReleasePass, releasePasses } from './passes.ts';

/** Declares the indexes (idempotent): deployments by environment and by due retry; requests by status. */
export async function ensureDeploymentIndexes(deps: Pick<DeploymentDeps, 'docs'>): Promise<void> {
  const deployments = deps.docs.collection(deploymentCollections.deployments);
  await deployments.createIndex({ agentId: 1, environment: 1 });
  await deployments.createIndex({ status: 1, nextRetryAt: 1 });
  await deps.docs.collection(deploymentCollections.reconciliations).createIndex({ status: 1, requestedAt: 1 });
}
