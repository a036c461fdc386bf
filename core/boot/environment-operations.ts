/**
 * Wires environment operations (publish, restore, discard, promote; core/agent/operations.ts) to the job
 * queue: the hosting dependencies a dispatcher runs them with, and the dispatcher's consumer. The queue's name and
 * the API's enqueuer are core/agent's (core/agent/operations-model.ts).
 *
 * Source: spec/platform-service.md § Processes (the dispatcher consumes environment operations);
 * docs/decisions.md D7 § Agents and environments, § Dispatcher and workers.
 */
import { createObjectStoreGitRepo } from '../adapters/git/index.ts';
import {
  type AgentDeps,
  builtinTemplate,
  ENVIRONMENT_OPERATIONS_QUEUE,
  environmentOperationConcurrency,
  type OperationRecord,
  runOperation,
} from '../agent/hosting.ts';
import { createDocumentLease } from '../lease/document-lease.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { orgAgentAuthority } from './agent-authority.ts';
import { unpricedCapProblems } from './spend-cap-models.ts';
import type { ModelsConfig } from '../config/config-model.ts';

/**
 * The hosting dependencies a dispatcher runs operations with: git through the object store (scratch copies
 * under `scratchDir`), the per-agent lock in the document store (the API's lock), core/org's roles.
 * New agents are not created here, so the template is the built-in one. With `models` (the config's models section)
 * a publish is refused when it leaves a capped workflow on a model without prices (./spend-cap-models.ts).
 */
export function operationHostingDeps(parts: {
  docs: DocumentStore;
  objects: ObjectStore;
  scratchDir: string;
  clock: Clock;
  ids: Ids;
  models?: ModelsConfig;
}): AgentDeps {
  const { docs, objects, clock, ids } = parts;
  return {
    ...('models' in parts ? { publishChecks: unpricedCapProblems({ docs, models: parts.models }) } : {}),
    docs,
    objects,
    clock,
    ids,
    git: createObjectStoreGitRepo({ objectStore: objects, scratchDir: parts.scratchDir }),
    lease: createDocumentLease(docs, clock),
    authority: orgAgentAuthority({ docs }),
    template: async () => builtinTemplate(),
    wait: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
}

/**
 * Consumes the environment-operations queue: each job's operation is claimed, run and ended (a job whose
 * operation was already claimed or ended does nothing).
 * @param log - receives one line per ended operation, and unexpected errors (never a value of the agent's files)
 * @param options - `afterEnded`: runs after each ended operation (the trigger reconciliation a succeeded publish,
 *   restore or promotion asks for: core/boot/deployment-dispatcher.ts); its failure is logged, the operation stays
 *   ended
 */
export function consumeEnvironmentOperations(
  queue: JobQueue,
  deps: AgentDeps,
  log: (line: string) => void,
  options: { afterEnded?(op: OperationRecord): Promise<void> } = {},
): { stop(): Promise<void> } {
  return queue.consume(ENVIRONMENT_OPERATIONS_QUEUE, async (job) => {
    const { operationId } = job.data as { operationId: string };
    const ended = await runOperation(
      deps,
      operationId,
      (error) => log(`environment operation ${operationId} failed unexpectedly: ${(error as Error).message}`),
    );
    if (ended) {
      log(
        `environment operation ${ended._id} (${ended.kind} ` + `${ended.environment} of agent ${ended.agentId}) ` +
          `${ended.status}${ended.error ? `: ${ended.error.code}` : ''}`,
      );
    }
    if (ended && options.afterEnded) {
      await options.afterEnded(ended).catch((error: Error) =>
        log(`after environment operation ${ended._id}: ${error.message}`)
      );
    }
  }, { concurrency: environmentOperationConcurrency });
}
