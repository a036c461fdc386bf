/**
 * Evaluation runs as the API starts and reads them. The API starts a run (User on the agent): the environment's
 * published build and the chosen cases are fixed in the run's record, then its job goes on the `evaluations` queue
 * (job id = the run's id, so a second add adds nothing). A dispatcher runs it (./evaluation-runner.ts); the sweep
 * finds runs whose job was lost (./evaluation-sweep.ts). Reading runs needs Reader; a run of an agent the caller
 * does not see is 404 with nothing of it named.
 *
 * Source: issue "Evaluations" § Runs, § Results, § Done when (the replacement table: running ones failed, queued
 * ones re-enqueued); spec/platform-service.md § Processes.
 */
import type { AgentFile } from '../agent/documents.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import { NO_USAGE } from '../model/cost.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { type CaseSelection, selectCases } from './cases.ts';
import {
  evaluationCollections,
  type EvaluationRunRecord,
  evaluationSchemaVersion,
  finalEvaluationStatuses,
} from './model.ts';

/** The member acting. */
export interface EvaluationCaller {
  subject: string;
  email: string;
}

/** The build a run runs on: its id, commit and files. */
export interface RunBuild {
  buildId: string;
  commitId: string;
  files: AgentFile[];
}

/** An agent resolved for a caller with a role checked. */
export interface ResolvedAgent {
  orgId: string;
  agentId: string;
  slug: string;
}

/** What the API's run use cases need. */
export interface EvaluationDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
  /**
   * The agent `ref` names, the caller holding at least `role` on it.
   * @throws PlatformError `not_found` (404, nothing named) when the caller does not see it, `agent_role_required`
   */
  resolveAgent(
    caller: EvaluationCaller,
    ref: { orgId?: string; agent: string },
    role: 'reader' | 'user',
  ): Promise<ResolvedAgent>;
  /**
   * The published build of an environment: its id, commit and files.
   * @throws PlatformError `environment_not_found` (404), `not_published` (409)
   */
  publishedBuild(agent: ResolvedAgent, environment: string): Promise<RunBuild>;
  /**
   * The build of the environment's draft (the published one when the draft is published, else a candidate build).
   * @throws PlatformError `environment_not_found` (404), `agent_invalid` (422) for a draft that does not validate
   */
  draftBuild(agent: ResolvedAgent, environment: string, caller: EvaluationCaller): Promise<RunBuild>;
  /** Puts the run's job on the `evaluations` queue. @throws PlatformError `queue_unavailable` (503) */
  enqueue(runId: string): Promise<void>;
}

/** The `evaluation_runs` collection. */
export const runsOf = (deps: { docs: DocumentStore }) =>
  deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs);

/** The indexes of `evaluation_runs` (an environment's runs newest first, the sweep's open runs by age) and of
 * `evaluation_calls` (a run's calls of a case by fingerprint, in recorded order: ./cassette-store.ts). */
export async function ensureEvaluationIndexes(docs: DocumentStore): Promise<void> {
  await runsOf({ docs }).createIndex({ agentId: 1, environment: 1, createdAt: -1 });
  await runsOf({ docs }).createIndex({ status: 1, createdAt: 1 });
  await docs.collection(evaluationCollections.calls).createIndex({
    runId: 1,
    caseId: 1,
    fingerprint: 1,
    recordedAt: 1,
  });
}

/**
 * Starts a run of the environment's published build (or, with `draft`, of its draft): the cases chosen (all,
 * `workflow`'s, or `case`), the record written `queued`, the job queued. A queue that refuses the job leaves no run
 * behind.
 * With `record`, the run keeps its model calls; with `replay` (an ended recording run of the agent), its model calls
 * are answered from that run's (./cassette-store.ts).
 * @throws PlatformError `not_found`, `agent_role_required` (403), `environment_not_found`, `not_published`,
 *   `agent_invalid` (422, a draft that does not validate), the refusals of the cassette choice (400, 404, 409),
 *   `invalid_request` (400: the build has no case),
 *   `not_found` (404: the selection matches none, listing the cases), `queue_unavailable` (503)
 */
export async function startEvaluationRun(
  deps: EvaluationDeps,
  caller: EvaluationCaller,
  ref: { orgId?: string; agent: string; environment: string; draft?: boolean } & CaseSelection & CassetteChoice,
): Promise<EvaluationRunRecord> {
  const agent = await deps.resolveAgent(caller, ref, 'user');
  const cassette = await checkCassette(deps, agent, ref);
  const build = ref.draft === true
    ? await deps.draftBuild(agent, ref.environment, caller)
    : await deps.publishedBuild(agent, ref.environment);
  const selection: CaseSelection = {
    ...(ref.workflow === undefined ? {} : { workflow: ref.workflow }),
    ...(ref.stem === undefined ? {} : { stem: ref.stem }),
  };
  const run = newRun(deps, { agent, environment: ref.environment, build, selection, startedBy: caller.subject });
  return queueRun(deps, { ...run, ...(ref.draft === true ? { draft: true } : {}), ...cassette });
}

/** Whether a run records its model calls, or replays those of an earlier run of the agent (its id). */
export interface CassetteChoice {
  record?: boolean;
  replay?: string;
}

/**
 * The cassette fields of a new run.
 * @throws PlatformError `invalid_request` (400) for both at once or a run that kept no cassette, `not_found` (404)
 *   for a run of another agent or none (nothing named), `run_not_ended` (409) for a run still running
 */
async function checkCassette(
  deps: Pick<EvaluationDeps, 'docs'>,
  agent: ResolvedAgent,
  choice: CassetteChoice,
): Promise<Pick<EvaluationRunRecord, 'cassette' | 'replayOf'>> {
  if (choice.replay === undefined) return choice.record === true ? { cassette: 'record' } : {};
  if (choice.record === true) {
    throw new PlatformError('invalid_request', 'A run either records (record) or replays (replay), not both.', {
      status: 400,
    });
  }
  const from = await runsOf(deps).findOne({ _id: choice.replay, agentId: agent.agentId });
  if (!from) throw runNotFound();
  if (from.cassette === undefined) {
    throw new PlatformError(
      'invalid_request',
      `Run ${from._id} did not record its model calls; start a run with record (cairn eval run --record) and ` +
        'replay that one.',
      { status: 400 },
    );
  }
  if (!finalEvaluationStatuses.includes(from.status)) {
    throw new PlatformError('run_not_ended', `Run ${from._id} has not ended yet; replay it when it has.`, {
      status: 409,
    });
  }
  return { cassette: 'replay', replayOf: from._id };
}

/** What a new run is of. */
export interface RunOf {
  agent: ResolvedAgent;
  environment: string;
  build: RunBuild;
  selection: CaseSelection;
  /** The subject of the member it is started by. */
  startedBy: string;
}

/** A new run's record (`queued`), its cases chosen. @throws PlatformError as {@link selectCases} */
export function newRun(deps: Pick<EvaluationDeps, 'clock' | 'ids'>, of: RunOf): EvaluationRunRecord {
  const cases = selectCases(of.build.files, of.selection);
  return {
    _id: `ev-${deps.ids.newId()}`,
    schemaVersion: evaluationSchemaVersion,
    orgId: of.agent.orgId,
    agentId: of.agent.agentId,
    agentSlug: of.agent.slug,
    environment: of.environment,
    buildId: of.build.buildId,
    commitId: of.build.commitId,
    selection: of.selection,
    status: 'queued',
    caseIds: cases.map((c) => c.id),
    cases: [],
    current: null,
    error: null,
    startedBy: of.startedBy,
    createdAt: deps.clock.now(),
    startedAt: null,
    endedAt: null,
    judgeUsage: { ...NO_USAGE },
    costUsd: 0,
    judgeCostUsd: 0,
  };
}

/** Writes `record` and queues its job; a queue that refuses the job leaves no run behind. @returns the record */
export async function queueRun(
  deps: Pick<EvaluationDeps, 'docs' | 'enqueue'>,
  record: EvaluationRunRecord,
): Promise<EvaluationRunRecord> {
  await runsOf(deps).insertOne(record);
  try {
    await deps.enqueue(record._id);
  } catch (error) {
    await runsOf(deps).deleteOne({ _id: record._id, status: 'queued' });
    throw error;
  }
  return record;
}

/** The 404 of a run the caller may not see (or that does not exist: the two read the same; nothing named). */
const runNotFound = () =>
  new PlatformError(
    'not_found',
    "No such evaluation run among the runs you can see; GET the environment's evaluations to list them.",
    { status: 404 },
  );

/**
 * The runs of an environment, newest first (at most `limit`, default 50).
 * @throws PlatformError `not_found` (404) when the caller does not see the agent
 */
export async function listEvaluationRuns(
  deps: EvaluationDeps,
  caller: EvaluationCaller,
  ref: { orgId?: string; agent: string; environment: string; limit?: number },
): Promise<EvaluationRunRecord[]> {
  const agent = await deps.resolveAgent(caller, ref, 'reader');
  const filter = { agentId: agent.agentId, environment: ref.environment };
  return runsOf(deps).find(filter, { sort: { createdAt: -1 }, limit: ref.limit ?? 50 });
}

/**
 * One run of an environment.
 * @throws PlatformError `not_found` (404) for a run the caller does not see, of another environment, or none
 */
export async function showEvaluationRun(
  deps: EvaluationDeps,
  caller: EvaluationCaller,
  ref: { orgId?: string; agent: string; environment: string; runId: string },
): Promise<EvaluationRunRecord> {
  const agent = await deps.resolveAgent(caller, ref, 'reader').catch((error) => {
    throw isPlatformError(error, 'not_found') ? runNotFound() : error;
  });
  const run = await runsOf(deps).findOne({ _id: ref.runId, agentId: agent.agentId, environment: ref.environment });
  if (!run) throw runNotFound();
  return run;
}
