/**
 * A run from its job to its verdict, in a dispatcher: case after case, each as a session of its own on the real
 * runtime, the verdict of each recorded as it ends. A dispatcher that stops mid-run leaves the case it ran as
 * `current`: the next one to take the job (the queue's stalled-job recovery) fails that case as interrupted and goes
 * on with the next, so no case runs twice and none is lost.
 *
 * Source: issue "Evaluations" § Runs, § Results, § Done when (the replacement table: running ones failed, queued
 * ones re-enqueued); spec/platform-service.md § Processes.
 */
import type { AgentFile } from '../agent/documents.ts';
import { addUsage, NO_USAGE } from '../model/cost.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { type EvaluationCase, selectCases } from './cases.ts';
import { runsOf } from './evaluation-runs.ts';
import type { GradeDeps } from './grade.ts';
import { type EvaluationRunRecord, finalEvaluationStatuses } from './model.ts';
import { type CaseDriver, type CaseResult, runCase } from './run-case.ts';

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
