/**
 * Trigger deployments: the stored record of each trigger of an environment's published build that deploys
 * (serving or in error, with the retry state), the reconciliation request of an agent environment, the
 * collection names and their indexes, the queue reconciliations run on, and the world the use cases need.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations, § Incoming connection
 * (row status), § Errors, § Limits (lost reconciliation retry; trigger deployment retries); docs/decisions.md D8 §
 * Triggers.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';

/** Version of the document shape each deployment collection holds (`schemaVersion`). Source: spec § Versioning. */
export const deploymentSchemaVersion = 1 as const;

/** Collection names, one place. */
export const deploymentCollections = {
  /** One record per agentId + environment + workflow + trigger: {@link DeploymentRecord}. */
  deployments: 'trigger_deployments',
  /** One record per agentId + environment: {@link ReconciliationRecord}. */
  reconciliations: 'trigger_reconciliations',
} as const;

/** The queue reconciliations run on (every dispatcher consumes it). Source: spec § Processes (trigger queues). */
export const DEPLOYMENT_QUEUE = 'trigger-deployments';

/** Reconciliations one dispatcher runs at once (one environment's runs never overlap: its request's compare-and-set).
 */
export const reconciliationConcurrency = 2;

/** Trigger kinds that deploy (`manual` does not; chat, mcp and webhook only when they name a connection). */
export const deployingTriggerTypes = [
  'chat',
  'mcp',
  'webhook',
  'callback',
  'schedule',
  'polling',
  'completion',
] as const;

/** A deployment's status. */
export const DeploymentStatus = Type.Union([Type.Literal('serving'), Type.Literal('error')]);
/** `serving` or `error`. */
export type DeploymentStatus = Static<typeof DeploymentStatus>;

/**
 * A trigger deployment as stored; `_id` is `<agentId>:<environment>:<workflow>:<trigger>`.
 * `failuresInRow` counts failed attempts since the deployment last served (0 while serving); `nextRetryAt` is
 * when the retry sweep asks for the next automatic retry (null while serving or once retries are exhausted);
 * `retrying` marks an error the sweep has asked to retry (the next reconciliation retries it).
 */
export const DeploymentRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(deploymentSchemaVersion),
  agentId: Type.String(),
  environment: Type.String(),
  workflow: Type.String(),
  trigger: Type.String(),
  /** The trigger's kind (chat, mcp, webhook, callback, schedule, polling, completion). */
  type: Type.String(),
  status: DeploymentStatus,
  /** Why it is in error, naming what is wrong and what to do; null while serving. */
  message: Type.Union([Type.String(), Type.Null()]),
  /** The incoming connection the trigger names, when it names one. */
  connection: Type.Union([Type.String(), Type.Null()]),
  buildId: Type.String(),
  failuresInRow: Type.Integer({ minimum: 0 }),
  nextRetryAt: Type.Union([Type.Date(), Type.Null()]),
  retriesExhausted: Type.Boolean(),
  retrying: Type.Boolean(),
  updatedAt: Type.Date(),
});
/** A stored trigger deployment. */
export type DeploymentRecord = Static<typeof DeploymentRecord>;

/**
 * Why a reconciliation was asked for; `release` is a pass an operator requests after a release that changes how
 * deployments are computed. Source: spec § Trigger deployment (reconciliation runs after …; a release … reaches
 * running environments only after a reconciliation of every environment).
 */
export const reconciliationReasons = [
  'publish',
  'restore',
  'promotion',
  'credential',
  'retry_now',
  'due_retry',
  'release',
] as const;
/** One reason. */
export type ReconciliationReason = (typeof reconciliationReasons)[number];

/**
 * Reasons that try every deployment again from a clean slate (failures in a row start over, exhausted retries
 * are lifted). A due retry only retries the deployments whose retry fell due.
 * Source: spec § Trigger deployment (only a publish, a credential change or a member's Retry now tries it again).
 */
export const resettingReasons: readonly ReconciliationReason[] = [
  'publish',
  'restore',
  'promotion',
  'credential',
  'retry_now',
  'release',
];

/** A reconciliation request's status: `queued` → `running` → `done`. */
export const ReconciliationStatus = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done')]);
/** `queued`, `running` or `done`. */
export type ReconciliationStatus = Static<typeof ReconciliationStatus>;

/**
 * The reconciliation request of an agent environment; `_id` is `<agentId>:<environment>`. Requests made while
 * one is queued or running merge into it: `reason` is the latest, `reset` says whether any merged request was a
 * resetting one, `requestId` changes with each request (a run that ends with another requestId runs again).
 */
export const ReconciliationRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(deploymentSchemaVersion),
  agentId: Type.String(),
  environment: Type.String(),
  reason: Type.Union(reconciliationReasons.map((r) => Type.Literal(r))),
  reset: Type.Boolean(),
  status: ReconciliationStatus,
  requestId: Type.String(),
  requestedAt: Type.Date(),
  startedAt: Type.Union([Type.Date(), Type.Null()]),
  endedAt: Type.Union([Type.Date(), Type.Null()]),
  /** Counts of the last run that ended: deployments serving and in error. */
  serving: Type.Integer({ minimum: 0 }),
  errors: Type.Integer({ minimum: 0 }),
});
/** A stored reconciliation request. */
export type ReconciliationRecord = Static<typeof ReconciliationRecord>;

/** The world the deployment use cases need, passed in. */
export interface DeploymentDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/** Declares the indexes (idempotent): deployments by environment and by due retry; requests by status. */
export async function ensureDeploymentIndexes(deps: Pick<DeploymentDeps, 'docs'>): Promise<void> {
  const deployments = deps.docs.collection(deploymentCollections.deployments);
  await deployments.createIndex({ agentId: 1, environment: 1 });
  await deployments.createIndex({ status: 1, nextRetryAt: 1 });
  await deps.docs.collection(deploymentCollections.reconciliations).createIndex({ status: 1, requestedAt: 1 });
}

/** An agent environment. */
export interface EnvironmentRef {
  agentId: string;
  environment: string;
}

/** The `_id` of a deployment. */
export const deploymentKey = (env: EnvironmentRef, workflow: string, trigger: string): string =>
  `${env.agentId}:${env.environment}:${workflow}:${trigger}`;
/** The `_id` of a reconciliation request. */
export const reconciliationKey = (env: EnvironmentRef): string => `${env.agentId}:${env.environment}`;
