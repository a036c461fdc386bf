/**
 * Reconciliation requests: one record per agent environment. A request marks it `queued` (or, while a run is
 * going, gives it a new requestId so the run goes round again) and puts a job on the queue; a dispatcher's run
 * claims it (`queued` → `running`, compare-and-set), reconciles, and ends it `done` unless another request came
 * in meanwhile. Every move is a compare-and-set on status and requestId, so any number of dispatchers and APIs
 * may request and run at once. The requests over the job queue ({@link reconciliationDeps}) and the request a
 * succeeded environment operation asks for ({@link requestAfterOperation}) are here too.
 *
 * Source: spec/platform-service.md § Trigger deployment (reconciliation runs after …; the dispatcher
 * does not reconcile at startup); docs/decisions.md D8 § Triggers.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import {
  DEPLOYMENT_QUEUE,
  deploymentCollections,
  type DeploymentDeps,
  deploymentSchemaVersion,
  type EnvironmentRef,
  reconciliationKey,
  type ReconciliationReason,
  type ReconciliationRecord,
  resettingReasons,
} from './model.ts';

/** Puts a job for `requestId` of `env` on the queue (its job id must not contain `:`). */
export type EnqueueReconciliation = (env: EnvironmentRef, requestId: string) => Promise<void>;

/** What requesting needs: the stores and the enqueuer. */
export interface ReconciliationDeps extends DeploymentDeps {
  enqueue: EnqueueReconciliation;
}

/** The counts a reconciliation pass reports. */
export interface PassCounts {
  serving: number;
  errors: number;
}

/** Compare-and-set attempts before giving up on a contended record (each re-reads it). */
const casAttempts = 20;
/** Runs one claim does at most (new requests while running send it round again) before handing over to a job. */
const maxRounds = 5;

/** The reconciliation requests collection. */
export const reconciliationsOf = (deps: Pick<DeploymentDeps, 'docs'>) =>
  deps.docs.collection<ReconciliationRecord>(deploymentCollections.reconciliations);

/**
 * Requests a reconciliation of `env` for `reason` and queues its job (none while a run is going: the run goes
 * round again).
 * @returns the request record after the change
 * @throws PlatformError `reconciliation_contended` (503) when the record kept changing (retry); the enqueuer's errors
 */
export async function requestReconciliation(
  deps: ReconciliationDeps,
  env: EnvironmentRef,
  reason: ReconciliationReason,
): Promise<ReconciliationRecord> {
  const requests = reconciliationsOf(deps);
  const _id = reconciliationKey(env);
  const resetting = resettingReasons.includes(reason);
  for (let attempt = 0; attempt < casAttempts; attempt += 1) {
    const requestId = deps.ids.newId();
    const requestedAt = deps.clock.now();
    const current = await requests.findOne({ _id });
    if (!current) {
      const record: ReconciliationRecord = {
        _id,
        schemaVersion: deploymentSchemaVersion,
        agentId: env.agentId,
        environment: env.environment,
        reason,
        reset: resetting,
        status: 'queued',
        requestId,
        requestedAt,
        startedAt: null,
        endedAt: null,
        serving: 0,
        errors: 0,
      };
      try {
        await requests.insertOne(record);
      } catch (error) {
        if (isPlatformError(error, 'duplicate_key')) continue;
        throw error;
      }
      await deps.enqueue(env, requestId);
      return record;
    }
    const status: 'running' | 'queued' = current.status === 'running' ? 'running' : 'queued';
    const change = {
      reason,
      requestId,
      requestedAt,
      status,
      reset: current.status === 'done' ? resetting : current.reset || resetting,
    };
    const { matched } = await requests.updateOne({ _id, requestId: current.requestId, status: current.status }, {
      $set: change,
    });
    if (matched === 0) continue;
    if (status === 'queued') await deps.enqueue(env, requestId);
    return { ...current, ...change };
  }
  throw new PlatformError(
    'reconciliation_contended',
    `The reconciliation request of environment "${env.environment}" kept changing while it was being updated; try ` +
      `again in a moment.`,
    { status: 503 },
  );
}

/** Claims the queued request of `env` (`queued` → `running`). @returns the claimed record, or undefined when none is
 * queued */
async function claim(deps: DeploymentDeps, _id: string): Promise<ReconciliationRecord | undefined> {
  const requests = reconciliationsOf(deps);
  for (let attempt = 0; attempt < casAttempts; attempt += 1) {
    const current = await requests.findOne({ _id });
    if (!current || current.status !== 'queued') return undefined;
    const startedAt = deps.clock.now();
    const { matched } = await requests.updateOne({ _id, status: 'queued', requestId: current.requestId }, {
      $set: { status: 'running', startedAt },
    });
    if (matched === 1) return { ...current, status: 'running', startedAt };
  }
  return undefined;
}

/**
 * Runs the queued reconciliation of `env`, if any: claims it, calls `reconcile` (with whether the pass resets),
 * and ends it `done` with the counts; a request that came in meanwhile sends it round again. A `reconcile` that
 * throws puts the request back to `queued` (the sweep queues it again once it has waited 10 minutes) and rethrows.
 * @returns the ended record, or undefined when nothing was queued (another dispatcher ran it)
 */
export async function runReconciliation(
  deps: ReconciliationDeps,
  env: EnvironmentRef,
  reconcile: (env: EnvironmentRef, reset: boolean) => Promise<PassCounts>,
): Promise<ReconciliationRecord | undefined> {
  const requests = reconciliationsOf(deps);
  const _id = reconciliationKey(env);
  for (let round = 0; round < maxRounds; round += 1) {
    const claimed = await claim(deps, _id);
    if (!claimed) return undefined;
    let counts: PassCounts;
    try {
      counts = await reconcile(env, claimed.reset);
    } catch (error) {
      await requests.updateOne({ _id, status: 'running' }, { $set: { status: 'queued' } });
      throw error;
    }
    const ended = {
      status: 'done' as const,
      endedAt: deps.clock.now(),
      reset: false,
      serving: counts.serving,
      errors: counts.errors,
    };
    const { matched } = await requests.updateOne({ _id, status: 'running', requestId: claimed.requestId }, {
      $set: ended,
    });
    if (matched === 1) return { ...claimed, ...ended };
    // Another request came in while this one ran: run again with what it asked for.
    await requests.updateOne({ _id, status: 'running' }, { $set: { status: 'queued' } });
  }
  const left = await requests.findOne({ _id });
  if (left?.status === 'queued') await deps.enqueue(env, left.requestId);
  return undefined;
}

/** The reconciliation request of `env`, or null when none was ever made. */
export async function reconciliationOf(
  deps: Pick<DeploymentDeps, 'docs'>,
  env: EnvironmentRef,
): Promise<ReconciliationRecord | null> {
  return reconciliationsOf(deps).findOne({ _id: reconciliationKey(env) });
}

/**
 * ReconciliationDeps over the stores and the queue: a request's job is `reconcile-<requestId>` on
 * {@link DEPLOYMENT_QUEUE} (no `:`). Without a queue store a request is recorded and not queued.
 */
export function reconciliationDeps(parts: DeploymentDeps & { queue?: JobQueue }): ReconciliationDeps {
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

/** The fields of an ended environment operation (core/agent's `OperationRecord`) its reconciliation depends on. */
export interface EndedOperation {
  kind: string;
  status: string;
  agentId: string;
  environment: string;
  input: { to?: string };
}

/** The reason and environment a succeeded operation reconciles (discard changes no published build). */
export function reconciliationAfter(
  op: EndedOperation,
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
export async function requestAfterOperation(deps: ReconciliationDeps, op: EndedOperation): Promise<void> {
  const after = reconciliationAfter(op);
  if (after) await requestReconciliation(deps, after.env, after.reason);
}
