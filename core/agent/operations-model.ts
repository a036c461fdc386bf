/**
 * Environment operations as records: publish, restore, discard and promote are queued work. The API
 * inserts an operation `queued`, a dispatcher claims it (`running`) and ends it `succeeded` (with the
 * environment after it) or `failed` (with the error; a refused publish keeps its located problems). The queue
 * operations go on and the API's enqueuer are here too.
 *
 * Source: spec/platform-service.md § Processes (the dispatcher consumes environment operations),
 * § Replacement of a container (a queued or running environment operation ends failed); docs/decisions.md D7 § Agents
 * and environments.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { JobQueue } from '../ports/job-queue.ts';
import { AgentCounts, agentSchemaVersion } from './hosting-model.ts';

/** The kinds of environment operation. */
export const OperationKind = Type.Union([
  Type.Literal('publish'),
  Type.Literal('restore'),
  Type.Literal('discard'),
  Type.Literal('promote'),
]);
export type OperationKind = Static<typeof OperationKind>;

/** An operation's status: `queued` → `running` → `succeeded` | `failed`. */
export const OperationStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);
export type OperationStatus = Static<typeof OperationStatus>;

/** What an operation was asked with: restore's optional `buildId`, promote's target environment `to`. */
export const OperationInput = Type.Object({ buildId: Type.Optional(Type.String()), to: Type.Optional(Type.String()) });
export type OperationInput = Static<typeof OperationInput>;

/** One problem of a refused publish, located, with its one-line text `file:line:col key: message`. */
export const OperationProblem = Type.Object({
  file: Type.String(),
  line: Type.Number(),
  column: Type.Number(),
  key: Type.String(),
  message: Type.String(),
  text: Type.String(),
});
export type OperationProblem = Static<typeof OperationProblem>;

/** Why an operation failed: the use case's error code and message (and a refused publish's problems). */
export const OperationError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  problems: Type.Optional(Type.Array(OperationProblem)),
});
export type OperationError = Static<typeof OperationError>;

/** The environment after a succeeded operation (core/agent's EnvironmentView). */
export const OperationResult = Type.Object({
  agentId: Type.String(),
  name: Type.String(),
  draft: Type.Object({ commitId: Type.String(), savedAt: Type.Date() }),
  published: Type.Union([
    Type.Object({
      buildId: Type.String(),
      commitId: Type.String(),
      counts: AgentCounts,
      publishedAt: Type.Date(),
      publishedBy: Type.String(),
    }),
    Type.Null(),
  ]),
  /** Absent on results recorded before the gate existed (read as off). */
  evaluationGate: Type.Optional(Type.Boolean()),
});

/** The member who asked; the operation runs as them (their role is checked again when it runs). */
export const OperationCaller = Type.Object({
  subject: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
});

/** An environment operation record. Times are set by the process that moves it (`queuedAt` by the API). */
export const OperationRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(agentSchemaVersion),
  orgId: Type.String(),
  agentId: Type.String(),
  environment: Type.String(),
  kind: OperationKind,
  input: OperationInput,
  status: OperationStatus,
  requestedBy: OperationCaller,
  error: Type.Union([OperationError, Type.Null()]),
  result: Type.Union([OperationResult, Type.Null()]),
  queuedAt: Type.Date(),
  startedAt: Type.Union([Type.Date(), Type.Null()]),
  endedAt: Type.Union([Type.Date(), Type.Null()]),
});
export type OperationRecord = Static<typeof OperationRecord>;

/** An operation as the API shows it (`requestedBy` is the member's email). */
export interface OperationView {
  id: string;
  agentId: string;
  environment: string;
  kind: OperationKind;
  input: OperationInput;
  status: OperationStatus;
  requestedBy: string;
  error: OperationError | null;
  result: OperationRecord['result'];
  queuedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** The view of an operation record. */
export function operationView(op: OperationRecord): OperationView {
  return {
    id: op._id,
    agentId: op.agentId,
    environment: op.environment,
    kind: op.kind,
    input: op.input,
    status: op.status,
    requestedBy: op.requestedBy.email,
    error: op.error,
    result: op.result,
    queuedAt: op.queuedAt,
    startedAt: op.startedAt,
    endedAt: op.endedAt,
  };
}

/** Puts an operation's id on the environment-operations queue (given by the process; undefined without a queue store).
 */
export type EnqueueOperation = (operationId: string) => Promise<void>;

/** The queue environment operations are put on (every dispatcher consumes it). Source: spec § Processes. */
export const ENVIRONMENT_OPERATIONS_QUEUE = 'environment-operations';

/** Operations one dispatcher runs at once (operations on one agent still run one after the other: its lock). */
export const environmentOperationConcurrency = 4;

/** The enqueuer of the API: the operation id is the job id (adding it twice adds one job). Undefined without a queue.
 */
export function operationEnqueuer(queue: JobQueue | undefined): EnqueueOperation | undefined {
  if (!queue) return undefined;
  return async (operationId) => {
    await queue.add(ENVIRONMENT_OPERATIONS_QUEUE, 'operation', { operationId }, { jobId: operationId });
  };
}

/** The message of an operation that was queued or running when its container was replaced. Source: spec § Replacement
 * of a container. */
export const operationInterruptedMessage = 'The operation was interrupted by a platform restart; run it again.';
