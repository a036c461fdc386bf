/**
 * Environment operations as queued work: {@link requestOperation} (the API: role and shape checked at
 * once, the record inserted `queued`, its id enqueued), {@link runOperation} (a dispatcher: claims it,
 * runs publish, restore, discard or promote under the agent's lock, ends it succeeded or failed),
 * {@link readOperation} (Reader) and {@link failInterruptedOperations} (the replacement table's rule).
 *
 * Source: spec/platform-service.md § Processes, § Replacement of a container, § Errors;
 * docs/decisions.md D7 § Agents and environments.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { loadAgent } from './agent-access.ts';
import { agentLockTtlMs, agentLockWaitMs } from './agent-lock.ts';
import type { EnvironmentView } from './drafts.ts';
import { loadEnvironment } from './drafts.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  agentSchemaVersion,
  checkEnvironmentName,
} from './hosting-model.ts';
import {
  type EnqueueOperation,
  type OperationError,
  type OperationInput,
  operationInterruptedMessage,
  type OperationKind,
  type OperationRecord,
} from './operations-model.ts';
import { AgentInvalidError, formatAgentProblem } from './builds.ts';
import { discardDraft, restoreEnvironment } from './draft-restores.ts';
import { promoteEnvironment, publishEnvironment } from './publishing.ts';

type Docs = Pick<AgentDeps, 'docs'>;
const operationsOf = (deps: Docs) => deps.docs.collection<OperationRecord>(agentCollections.operations);

/** What is asked: the kind and its input (restore: optional `buildId`; promote: `to`, required). */
export interface OperationRequest {
  kind: OperationKind;
  input: OperationInput;
}

/** Times a run tries the agent's lock (each try waits {@link agentLockWaitMs}): a queued operation waits as long as the
 * lock can be held. */
const lockAttempts = Math.ceil(agentLockTtlMs / agentLockWaitMs);

/** The input kept for a kind (only the fields it takes). @throws PlatformError `invalid_argument` (400) */
function checkedInput(request: OperationRequest, from: string): OperationInput {
  if (request.kind === 'restore') return request.input.buildId === undefined ? {} : { buildId: request.input.buildId };
  if (request.kind !== 'promote') return {};
  const to = checkEnvironmentName(request.input.to ?? '');
  if (to === from) {
    throw new PlatformError(
      'invalid_argument',
      `Promote copies one environment's published build to another; "to" must differ from "${from}".`,
      { status: 400 },
    );
  }
  return { to };
}

/** The environment operation {@link requestOperation} queues. */
export interface OperationCall {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment's name. */
  envName: string;
  /** The operation and its input. */
  request: OperationRequest;
  /** Puts the id on the environment-operations queue; undefined when there is no queue store. */
  enqueue: EnqueueOperation | undefined;
}

/**
 * Asks for an environment operation (Maintainer role at least): checks the role, the agent, the
 * environment and the input at once, inserts the record `queued` and enqueues its id.
 * @returns the queued record
 * @throws PlatformError `agent_not_found`/`environment_not_found` (404), `agent_role_required` (403),
 *   `invalid_argument` (400), `queue_unavailable` (503) without a queue store
 */
export async function requestOperation(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, request, enqueue }: OperationCall,
): Promise<OperationRecord> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  const env = await loadEnvironment(deps, agent, envName);
  const input = checkedInput(request, env.name);
  if (!enqueue) {
    throw new PlatformError(
      'queue_unavailable',
      `No queue store is configured (QUEUE_URL), so no environment operation (${request.kind}) can run; set ` +
        `QUEUE_URL or run the all-in-one container.`,
      { status: 503 },
    );
  }
  const requestedBy: AgentCaller = {
    subject: caller.subject,
    email: caller.email,
    ...(caller.name ? { name: caller.name } : {}),
  };
  const record: OperationRecord = {
    _id: deps.ids.newId(),
    schemaVersion: agentSchemaVersion,
    orgId: agent.orgId,
    agentId: agent._id,
    environment: env.name,
    kind: request.kind,
    input,
    status: 'queued',
    requestedBy,
    error: null,
    result: null,
    queuedAt: deps.clock.now(),
    startedAt: null,
    endedAt: null,
  };
  await operationsOf(deps).insertOne(record);
  await enqueue(record._id).catch(async (error: unknown) => {
    await end(deps, record, 'queued', {
      status: 'failed',
      result: null,
      error: { code: 'queue_unavailable', message: 'The operation could not be queued; run it again.' },
    });
    throw new PlatformError('queue_unavailable', 'The queue store did not take the operation; retry in a moment.', {
      status: 503,
      cause: error,
    });
  });
  return record;
}

/**
 * One operation of agent `agentId` (Reader role at least).
 * @throws PlatformError `agent_not_found` (404), `agent_role_required` (403), `operation_not_found` (404)
 */
export async function readOperation(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  agentId: string,
  operationId: string,
): Promise<OperationRecord> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'reader' });
  const op = await operationsOf(deps).findOne({ _id: operationId, agentId: agent._id });
  if (!op) {
    const message = `Agent "${agent.slug}" has no such environment operation.`;
    throw new PlatformError('operation_not_found', message, { status: 404 });
  }
  return op;
}

/** Runs the use case of `op` as the member who asked. */
function perform(deps: AgentDeps, op: OperationRecord): Promise<EnvironmentView> {
  const caller = op.requestedBy;
  if (op.kind === 'publish') return publishEnvironment(deps, caller, op.agentId, op.environment);
  if (op.kind === 'restore') {
    return restoreEnvironment(deps, caller, {
      agentId: op.agentId,
      envName: op.environment,
      buildId: op.input.buildId,
    });
  }
  if (op.kind === 'discard') return discardDraft(deps, caller, op.agentId, op.environment);
  return promoteEnvironment(deps, caller, { agentId: op.agentId, from: op.environment, to: op.input.to ?? '' });
}

/** {@link perform}, trying the agent's lock again while another change holds it (up to its lapse time). */
async function performWhenFree(deps: AgentDeps, op: OperationRecord): Promise<EnvironmentView> {
  for (let attempt = 1;; attempt += 1) {
    try {
      return await perform(deps, op);
    } catch (error) {
      if (!isPlatformError(error, 'agent_busy') || attempt >= lockAttempts) throw error;
    }
  }
}

/** The recorded error of a failed run: a PlatformError's code and message (and a refused publish's problems). */
function operationError(error: unknown): OperationError {
  if (error instanceof AgentInvalidError) {
    return {
      code: error.code,
      message: error.message,
      problems: error.problems.map((p) => ({ ...p, text: formatAgentProblem(p) })),
    };
  }
  if (error instanceof PlatformError) return { code: error.code, message: error.message };
  return {
    code: 'internal',
    message: "The operation failed unexpectedly; the dispatcher's log has the cause. Run it again.",
  };
}

type Outcome = Pick<OperationRecord, 'status' | 'result' | 'error'>;

/** Moves `op` from `from` to the outcome (compare-and-set on the status). @returns whether it moved */
async function end(
  deps: Pick<AgentDeps, 'docs' | 'clock'>,
  op: OperationRecord,
  from: 'queued' | 'running',
  outcome: Outcome,
): Promise<boolean> {
  const { matched } = await operationsOf(deps).updateOne({ _id: op._id, status: from }, {
    $set: { ...outcome, endedAt: deps.clock.now() },
  });
  return matched === 1;
}

/**
 * Runs a queued operation: claims it (`queued` → `running`, compare-and-set, so one dispatcher runs it),
 * runs its use case under the agent's lock and ends it `succeeded` (with the environment after it) or
 * `failed` (with the error). An operation found `running` is one whose dispatcher stopped (its job came back from
 * the queue's stalled-job recovery): it is claimed again (compare-and-set on its start) and run again from the start.
 * An operation ended is left alone.
 * @param onUnexpected - receives an error that is not a PlatformError (recorded as `internal`), for the log
 * @returns the ended record, or undefined when there was nothing to claim
 */
export async function runOperation(
  deps: AgentDeps,
  operationId: string,
  onUnexpected: (error: unknown) => void = () => undefined,
): Promise<OperationRecord | undefined> {
  const ops = operationsOf(deps);
  const found = await ops.findOne({ _id: operationId });
  if (!found || (found.status !== 'queued' && found.status !== 'running')) return undefined;
  // A job delivered while its operation runs: the dispatcher that ran it stopped (the queue's stalled-job recovery
  // hands the job on), so it runs again from the start; each operation is safe to repeat.
  const startedAt = deps.clock.now();
  const { matched } = await ops.updateOne({ _id: operationId, status: found.status, startedAt: found.startedAt }, {
    $set: { status: 'running', startedAt },
  });
  if (matched === 0) return undefined;
  const op: OperationRecord = { ...(await ops.findOne({ _id: operationId }))!, status: 'running', startedAt };
  const outcome: Outcome = await performWhenFree(deps, op).then(
    (result) => ({ status: 'succeeded' as const, result, error: null }),
    (error: unknown) => {
      if (!(error instanceof PlatformError)) onUnexpected(error);
      return { status: 'failed' as const, result: null, error: operationError(error) };
    },
  );
  await end(deps, op, 'running', outcome);
  return (await ops.findOne({ _id: operationId })) ?? undefined;
}

/**
 * The replacement table's rule: every operation `queued` or `running` (its job was lost with the
 * container's queue store) ends `failed`, interrupted by a platform restart.
 * @param queuedBefore - only operations queued before this moment are settled as queued (later ones went
 *   to the new queue store); default: all
 * @returns how many were settled
 */
export async function failInterruptedOperations(
  deps: Pick<AgentDeps, 'docs' | 'clock'>,
  queuedBefore?: Date,
): Promise<number> {
  let settled = 0;
  for (const status of ['queued', 'running'] as const) {
    for (const op of await operationsOf(deps).find({ status })) {
      if (status === 'queued' && queuedBefore && op.queuedAt.getTime() >= queuedBefore.getTime()) continue;
      if (
        await end(deps, op, status, {
          status: 'failed',
          result: null,
          error: { code: 'interrupted', message: operationInterruptedMessage },
        })
      ) settled += 1;
    }
  }
  return settled;
}
