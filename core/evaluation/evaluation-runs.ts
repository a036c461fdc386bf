/**
 * Evaluation runs from start to verdict. The API starts a run (User on the agent): the environment's published
 * build and the chosen cases are fixed in the run's record, then its job goes on the `evaluations` queue (job id =
 * the run's id, so a second add adds nothing). A dispatcher runs it: case after case, each as a session of its own
 * on the real runtime, the verdict of each recorded as it ends. A dispatcher that stops mid-run leaves the case it
 * ran as `current`: the next one to take the job (the queue's stalled-job recovery) fails that case as interrupted
 * and goes on with the next, so no case runs twice and none is lost. Reading runs needs Reader; a run of an agent
 * the caller does not see is 404 with nothing of it named.
 *
 * Source: issue "Evaluations" § Runs, § Results, § Done when (the replacement table: running ones failed, queued
 * ones re-enqueued); spec/platform-service.md § Processes.
 */
import type { AgentFile } from '../agent/documents.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { addUsage, NO_USAGE } from '../model/cost.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { type CaseSelection, type EvaluationCase, selectCases } from './cases.ts';
import type { GradeDeps } from './grade.ts';
import {
  EVALUATION_QUEUE,
  evaluationCollections,
  type EvaluationRunRecord,
  evaluationSchemaVersion,
  finalEvaluationStatuses,
} from './model.ts';
import { type CaseDriver, type CaseResult, runCase } from './run-case.ts';

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

const runsOf = (deps: { docs: DocumentStore }) => deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs);

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

/** What a dispatcher needs to run a run's cases. */
export interface EvaluationRunnerDeps {
  docs: DocumentStore;
  clock: Clock;
  /** The files of the run's build. */
  filesOf(run: EvaluationRunRecord): Promise<AgentFile[]>;
  /** The driver of one case of `run` (its sessions marked with the run and the case). */
  driverFor(run: EvaluationRunRecord, evaluationCase: EvaluationCase): CaseDriver;
  /** The judge of the grades of one case of `run` (by default the model of the case's workflow). */
  gradeFor(run: EvaluationRunRecord, evaluationCase: EvaluationCase): GradeDeps;
  log(line: string): void;
}

/** The verdict of a case its dispatcher stopped running (the replacement table: a running case fails). */
function interrupted(id: string, title: string): CaseResult {
  return {
    id,
    title,
    passed: false,
    failingStep: 0,
    steps: [{
      index: 0,
      kind: 'interrupted',
      passed: false,
      error: {
        code: 'interrupted',
        message: 'the dispatcher running this case stopped before it ended; run the evaluation again',
      },
    }],
    durationMs: 0,
    judgeUsage: { ...NO_USAGE },
  };
}

/**
 * Runs the cases of run `runId` not yet done, recording each verdict as it ends, then its status. A run already
 * ended does nothing (a job run twice); a case left `current` by a stopped dispatcher fails as interrupted.
 */
export async function runEvaluation(deps: EvaluationRunnerDeps, runId: string): Promise<void> {
  const runs = runsOf(deps);
  let run = await runs.findOne({ _id: runId });
  if (!run || finalEvaluationStatuses.includes(run.status)) return;
  if (run.status === 'queued') {
    await runs.updateOne({ _id: runId, status: 'queued' }, {
      $set: { status: 'running', startedAt: deps.clock.now() },
    });
  }
  let cases: EvaluationCase[];
  try {
    cases = selectCases(await deps.filesOf(run), run.selection);
  } catch (error) {
    const why = isPlatformError(error)
      ? { code: error.code, message: error.message }
      : { code: 'build_unreadable', message: 'the build of this run could not be read; publish and run again' };
    await runs.updateOne({ _id: runId }, { $set: { status: 'error', error: why, endedAt: deps.clock.now() } });
    return;
  }
  const done = new Set(run.cases.map((c) => c.id));
  for (const id of run.caseIds) {
    if (done.has(id)) continue;
    const evaluationCase = cases.find((c) => c.id === id);
    const title = evaluationCase?.case.title ?? id;
    if (run.current === id || evaluationCase === undefined) {
      await record(deps, runId, interrupted(id, title));
      run = { ...run, current: null };
      continue;
    }
    await runs.updateOne({ _id: runId }, { $set: { current: id } });
    const result = await runCase(
      { driver: deps.driverFor(run, evaluationCase), grade: deps.gradeFor(run, evaluationCase), clock: deps.clock },
      evaluationCase,
    );
    await record(deps, runId, result);
    deps.log(`[evaluation] ${runId} ${id}: ${result.passed ? 'passed' : `failed at step ${result.failingStep! + 1}`}`);
  }
  const final = (await runs.findOne({ _id: runId }))!;
  const status = final.cases.every((c) => c.passed) ? 'passed' : 'failed';
  await runs.updateOne({ _id: runId }, { $set: { status, current: null, endedAt: deps.clock.now() } });
}

/** Appends a case's verdict (once per case id) and adds its cost and its judges' usage and cost to the run's. */
async function record(deps: { docs: DocumentStore }, runId: string, result: CaseResult): Promise<void> {
  const run = (await runsOf(deps).findOne({ _id: runId }))!;
  if (run.cases.some((c) => c.id === result.id)) return;
  const judgeUsage = addUsage(run.judgeUsage, result.judgeUsage);
  const costUsd = (run.costUsd ?? 0) + (result.costUsd ?? 0);
  const judgeCostUsd = (run.judgeCostUsd ?? 0) + (result.judgeCostUsd ?? 0);
  await runsOf(deps).updateOne(
    { _id: runId, 'cases.id': { $ne: result.id } },
    { $set: { cases: [...run.cases, result], current: null, judgeUsage, costUsd, judgeCostUsd } },
  );
}

/** How old a queued or running run must be before the sweep looks at its job (ms): a minute. */
export const EVALUATION_SWEEP_AGE_MS = 60_000;

/**
 * The evaluation sweep (every dispatcher, with the turn sweep): a run still queued or running whose job the queue
 * store lost (a store restarted without its file) is queued again; one whose job ended without ending the run (its
 * handler failed: the store answered an error mid-run) ends `error`, saying so. Runs younger than a minute are left
 * to their job. @returns one line per run acted on
 */
export async function sweepEvaluationRuns(
  deps: { docs: DocumentStore; clock: Clock; jobs: Pick<JobQueue, 'add' | 'jobState'> },
): Promise<string[]> {
  const before = new Date(deps.clock.now().getTime() - EVALUATION_SWEEP_AGE_MS);
  const open = await runsOf(deps).find({ status: { $in: ['queued', 'running'] }, createdAt: { $lt: before } }, {
    limit: 100,
  });
  const lines: string[] = [];
  for (const run of open) {
    const state = await deps.jobs.jobState(EVALUATION_QUEUE, run._id);
    if (state === 'missing') {
      await deps.jobs.add(EVALUATION_QUEUE, 'run', { runId: run._id }, { jobId: run._id });
      lines.push(`[evaluation] ${run._id}: its job was lost; queued again`);
    } else if (state === 'ended') {
      const error = {
        code: 'run_failed',
        message: 'the dispatcher failed while running this evaluation (see cairn failed-jobs list); run it again',
      };
      const filter = { _id: run._id, status: { $in: ['queued', 'running'] } };
      await runsOf(deps).updateOne(filter, { $set: { status: 'error', error, endedAt: deps.clock.now() } });
      lines.push(`[evaluation] ${run._id}: its job ended without ending the run; ended error`);
    }
  }
  return lines;
}
