/**
 * Applies an environment's desired deployments to its records: a deployment that can serve is `serving`; one with
 * a problem is `error` with the problem as its message and the retry policy's next retry; records of triggers no
 * longer desired are removed. A resetting pass (publish, restore, promotion, credential change, Retry now) starts
 * every failure count over; a due-retry pass retries only the deployments the sweep marked `retrying` and leaves
 * every other deployment in error as it is (exhausted ones stay in error).
 *
 * Source: spec/platform-service.md § Trigger deployment; docs/decisions.md D8 § Triggers.
 */
import type { DesiredDeployment } from './desired.ts';
import {
  deploymentCollections,
  type DeploymentDeps,
  deploymentKey,
  type DeploymentRecord,
  deploymentSchemaVersion,
  type EnvironmentRef,
} from './model.ts';
import { planAfterFailure } from './retry-policy.ts';

/** What one pass applies. */
export interface DeploymentPlan {
  /** The published build the desired deployments come from; null when nothing is published (every record goes). */
  buildId: string | null;
  desired: DesiredDeployment[];
  /** True for a resetting pass (see the module comment). */
  reset: boolean;
}

/** Counts after a pass. */
export interface ReconcileCounts {
  serving: number;
  errors: number;
  removed: number;
}

/** The deployment records collection. */
export const deploymentsOf = (deps: Pick<DeploymentDeps, 'docs'>) =>
  deps.docs.collection<DeploymentRecord>(deploymentCollections.deployments);

/** The retry fields after a failure, given the record before it (undefined: none). */
function failureFields(existing: DeploymentRecord | undefined, buildId: string, reset: boolean, now: Date) {
  const fresh = reset || !existing || existing.status === 'serving' || existing.buildId !== buildId;
  const failuresInRow = fresh ? 1 : existing.failuresInRow + 1;
  return { failuresInRow, ...planAfterFailure(failuresInRow, now) };
}

/** True when a non-resetting pass leaves this deployment alone: in error, not marked for retry, same build. */
const untouched = (existing: DeploymentRecord | undefined, buildId: string, reset: boolean) =>
  !reset && existing?.status === 'error' && !existing.retrying && existing.buildId === buildId;

/**
 * Writes the plan's deployments and removes the records of triggers no longer desired.
 * @returns how many serve, how many are in error, how many records were removed
 */
export async function applyDeployments(
  deps: DeploymentDeps,
  env: EnvironmentRef,
  plan: DeploymentPlan,
): Promise<ReconcileCounts> {
  const records = deploymentsOf(deps);
  const existing = new Map(
    (await records.find({ agentId: env.agentId, environment: env.environment })).map((r) => [r._id, r]),
  );
  const now = deps.clock.now();
  const keys: string[] = [];
  const counts = { serving: 0, errors: 0, removed: 0 };
  for (const d of plan.buildId === null ? [] : plan.desired) {
    const buildId = plan.buildId!;
    const _id = deploymentKey(env, d.workflow, d.trigger);
    keys.push(_id);
    const before = existing.get(_id);
    if (untouched(before, buildId, plan.reset)) {
      counts.errors += 1;
      continue;
    }
    const state = d.problem === null
      ? { status: 'serving' as const, message: null, failuresInRow: 0, nextRetryAt: null, retriesExhausted: false }
      : { status: 'error' as const, message: d.problem, ...failureFields(before, buildId, plan.reset, now) };
    counts[state.status === 'serving' ? 'serving' : 'errors'] += 1;
    const fields: Omit<DeploymentRecord, '_id'> = {
      schemaVersion: deploymentSchemaVersion,
      agentId: env.agentId,
      environment: env.environment,
      workflow: d.workflow,
      trigger: d.trigger,
      type: d.type,
      connection: d.connection,
      buildId,
      ...state,
      retrying: false,
      updatedAt: now,
    };
    await records.updateOne({ _id }, { $set: fields }, { upsert: true });
  }
  counts.removed = await records.deleteMany({
    agentId: env.agentId,
    environment: env.environment,
    _id: { $nin: keys },
  });
  return counts;
}

/** The deployments of an agent environment, by workflow then trigger. */
export async function listDeployments(
  deps: Pick<DeploymentDeps, 'docs'>,
  env: EnvironmentRef,
): Promise<DeploymentRecord[]> {
  return deploymentsOf(deps).find({ agentId: env.agentId, environment: env.environment }, {
    sort: { workflow: 1, trigger: 1 },
  });
}
