/**
 * A dispatcher's share of trigger deployments: it consumes the reconciliation queue, requests the reconciliation
 * a succeeded publish, restore or promotion asks for, and sweeps every 30 s (due retries; requests lost for 10
 * minutes). It does not reconcile at startup.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Replacement of a container (a requested
 * trigger reconciliation is queued again by the retry sweep after 10 minutes); docs/decisions.md D8 § Triggers.
 */
import type { OperationRecord } from '../agent/hosting.ts';
import {
  DEPLOYMENT_QUEUE,
  DEPLOYMENT_SWEEP_INTERVAL_MS,
  type DeploymentDeps,
  ensureDeploymentIndexes,
  reconciliationDeps,
  requestAfterOperation,
  sweepDeployments,
} from '../deployment/index.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { consumeReconciliations, type DesiredParts } from './deployment-wiring.ts';

/** What {@link startDeploymentWork} is given. */
export interface DeploymentWorkParts extends DesiredParts, DeploymentDeps {
  queue: JobQueue;
  /** Receives one line per reconciliation run and per sweep that did something. */
  log(line: string): void;
  /** Receives a failed sweep (`what` names it). */
  logError(what: string, error: Error): void;
}

/** The running work: `afterEnded` for consumeEnvironmentOperations; `stop` stops the consumer and the sweep. */
export interface DeploymentWork {
  afterEnded(op: OperationRecord): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts consuming {@link DEPLOYMENT_QUEUE} and sweeping every {@link DEPLOYMENT_SWEEP_INTERVAL_MS} (30 s); the
 * first sweep runs one interval after the start (never a reconciliation at startup).
 */
export async function startDeploymentWork(parts: DeploymentWorkParts): Promise<DeploymentWork> {
  await ensureDeploymentIndexes(parts);
  const deps = reconciliationDeps(parts);
  const consumer = consumeReconciliations(parts.queue, parts, parts.log);
  const sweep = () =>
    void sweepDeployments(deps).then(({ dueRetries, requeued }) => {
      if (dueRetries.length > 0) {
        parts.log(
          `[triggers] due deployment retries requested for ${
            dueRetries.map((e) => `${e.agentId}/${e.environment}`).join(', ')
          }`,
        );
      }
      if (requeued.length > 0) {
        parts.log(`[triggers] reconciliations lost for 10 minutes queued again: ${
          requeued.map((e) => `${e.agentId}/${e.environment}`).join(', ')
        }`);
      }
    }).catch((error: Error) =>
      parts.logError('deployment sweep failed', error)
    );
  const timer = setInterval(sweep, DEPLOYMENT_SWEEP_INTERVAL_MS);
  parts.log(
    `[triggers] deployments: queue ${DEPLOYMENT_QUEUE}; retry sweep every ${DEPLOYMENT_SWEEP_INTERVAL_MS / 1000} s`,
  );
  return {
    afterEnded: (op) => requestAfterOperation(deps, op),
    stop: async () => {
      clearInterval(timer);
      await consumer.stop();
    },
  };
}
