/**
 * The deployment sweep every dispatcher runs every 30 s: it asks for a due retry of each environment holding a
 * deployment in error whose retry fell due (marking each such deployment `retrying`, compare-and-set, so one
 * sweep claims it however many dispatchers sweep), and queues again a reconciliation request lost with the
 * queue store: one still `queued`, or `running` without ending, 10 minutes after it was requested or started.
 *
 * Source: spec/platform-service.md § Trigger deployment (a requested reconciliation lost with the queue
 * store is queued again by the retry sweep once it has waited 10 minutes), § Replacement of a container,
 * § Limits (lost reconciliation retry: after 10 minutes).
 */
import { type EnvironmentRef, reconciliationKey } from './model.ts';
import { deploymentsOf } from './reconcile.ts';
import { type ReconciliationDeps, reconciliationsOf, requestReconciliation } from './requests.ts';

/** How often each dispatcher sweeps deployments (ms). */
export const DEPLOYMENT_SWEEP_INTERVAL_MS = 30_000;

/** How long a reconciliation request waits (queued, or running without ending) before the sweep queues it again (ms).
 * Source: spec § Limits. */
export const LOST_RECONCILIATION_MS = 10 * 60_000;

/** What one sweep did. */
export interface SweepOutcome {
  /** Environments a due retry was requested for. */
  dueRetries: EnvironmentRef[];
  /** Environments whose lost request was queued again. */
  requeued: EnvironmentRef[];
}

const refOf = (r: EnvironmentRef): EnvironmentRef => ({ agentId: r.agentId, environment: r.environment });

/** Marks each due deployment `retrying` (compare-and-set) and requests a due retry of its environment. */
async function requestDueRetries(deps: ReconciliationDeps, now: Date): Promise<EnvironmentRef[]> {
  const records = deploymentsOf(deps);
  const due = await records.find({
    status: 'error',
    retriesExhausted: false,
    retrying: false,
    nextRetryAt: { $lte: now },
  });
  const envs = new Map<string, EnvironmentRef>();
  for (const d of due) {
    const { matched } = await records.updateOne({
      _id: d._id,
      status: 'error',
      retrying: false,
      nextRetryAt: { $lte: now },
    }, { $set: { retrying: true, nextRetryAt: null } });
    if (matched === 1) envs.set(reconciliationKey(d), refOf(d));
  }
  for (const env of envs.values()) await requestReconciliation(deps, env, 'due_retry');
  return [...envs.values()];
}

/** Gives each request waiting past {@link LOST_RECONCILIATION_MS} a new requestId (compare-and-set) and queues it. */
async function requeueLost(deps: ReconciliationDeps, now: Date): Promise<EnvironmentRef[]> {
  const requests = reconciliationsOf(deps);
  const before = new Date(now.getTime() - LOST_RECONCILIATION_MS);
  const lost = [
    ...(await requests.find({ status: 'queued', requestedAt: { $lte: before } })),
    ...(await requests.find({ status: 'running', startedAt: { $lte: before } })),
  ];
  const requeued: EnvironmentRef[] = [];
  for (const r of lost) {
    const requestId = deps.ids.newId();
    const { matched } = await requests.updateOne({ _id: r._id, status: r.status, requestId: r.requestId }, {
      $set: { status: 'queued', requestId, requestedAt: now },
    });
    if (matched === 0) continue;
    await deps.enqueue(refOf(r), requestId);
    requeued.push(refOf(r));
  }
  return requeued;
}

/** One sweep: due retries, then lost requests. */
export async function sweepDeployments(deps: ReconciliationDeps): Promise<SweepOutcome> {
  const now = deps.clock.now();
  return { dueRetries: await requestDueRetries(deps, now), requeued: await requeueLost(deps, now) };
}
