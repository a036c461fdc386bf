/**
 * Trigger deployments (public edge of `core/deployment`): the desired deployments of a published build and their
 * checks, the records and their retry policy, reconciliation requests and runs, the sweep, the row status of
 * incoming connections, and the role-checked use cases of the deployments routes.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations, § Incoming connection
 * (row status), § Errors, § Limits.
 */
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
  type EndedOperation,
  type EnqueueReconciliation,
  type PassCounts,
  reconciliationAfter,
  type ReconciliationDeps,
  reconciliationDeps,
  reconciliationOf,
  reconciliationsOf,
  requestAfterOperation,
  requestReconciliation,
  runReconciliation,
} from './requests.ts';
export {
  type ConnectionDeploymentHooks,
  connectionDeploymentHooks,
  type DeploymentAccess,
  deploymentAccess,
  type DeploymentScope,
  type DeploymentView,
  type ReconciliationView,
} from './deployment-access.ts';
export { DEPLOYMENT_SWEEP_INTERVAL_MS, LOST_RECONCILIATION_MS, sweepDeployments, type SweepOutcome } from './sweep.ts';
export {
  type ConnectionDeploymentStatus,
  type ConnectionRowStatus,
  connectionStatuses,
  notUsed,
} from './connection-status.ts';
export { passLine, type ReleasePass, releasePasses } from './passes.ts';
