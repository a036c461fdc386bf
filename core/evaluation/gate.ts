/**
 * The evaluation gate's side of evaluation runs: {@link evaluateBuild} runs every case of a build through the
 * `evaluations` queue (a run started by a publish, kept like any other) and waits for its verdict;
 * {@link passingRunOf} finds a run of every case of a build that passed (what a promotion into a gated environment
 * needs). core/boot wires both into core/agent's EvaluationGatePort.
 *
 * Source: issue "Evaluations" § Gate; docs/decisions.md D20 § Gate.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { type EvaluationDeps, newRun, queueRun, type ResolvedAgent, type RunBuild } from './evaluation-runs.ts';
import { failureLine } from './junit.ts';
import { evaluationCollections, type EvaluationRunRecord, finalEvaluationStatuses } from './model.ts';

/** What the gate needs: the run stores and queue, and a pause between reads of the run. */
export interface GateDeps extends Pick<EvaluationDeps, 'docs' | 'clock' | 'ids' | 'enqueue'> {
  sleep(ms: number): Promise<void>;
  /** How long a gated publish waits for its run (ms); default {@link GATE_WAIT_MS}. */
  waitMs?: number;
}

/** How long a gated publish waits for its run by default (ms): an hour. */
export const GATE_WAIT_MS = 3_600_000;
/** How often the gate reads its run (ms). */
export const GATE_POLL_MS = 500;
/** The most failing cases a summary names (the run has the rest). */
const SUMMARY_CASES = 10;

const runsOf = (deps: Pick<EvaluationDeps, 'docs'>) =>
  deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs);

/** One sentence on how `run` ended, naming each failing case (at most ten) with its failing step. */
export function runSummary(run: EvaluationRunRecord): string {
  if (run.status === 'error') return `evaluation run ${run._id} could not run: ${run.error?.message ?? 'error'}`;
  const failed = run.cases.filter((c) => !c.passed);
  const head = `evaluation run ${run._id} ${run.status}: ${run.cases.length - failed.length} of ` +
    `${run.caseIds.length} case(s) passed`;
  if (failed.length === 0) return head;
  const named = failed.slice(0, SUMMARY_CASES).map((c) => `${c.id} at ${failureLine(c)}`);
  const more = failed.length > SUMMARY_CASES ? `; and ${failed.length - SUMMARY_CASES} more` : '';
  return `${head}; failing: ${named.join('; ')}${more}`;
}

/**
 * Runs every case of `build` of `agent`'s `environment` (a run with origin `publish`, marked as a draft's) and waits
 * for its end. A build without cases cannot pass: the gate refuses rather than publish untested.
 * @returns the run's id, whether every case passed, and its summary ({@link runSummary})
 * @throws PlatformError `evaluation_timeout` (504) when the run has not ended after the wait, `queue_unavailable`
 */
export async function evaluateBuild(
  deps: GateDeps,
  of: { agent: ResolvedAgent; environment: string; build: RunBuild; startedBy: string },
): Promise<{ runId: string; passed: boolean; summary: string }> {
  let record: EvaluationRunRecord;
  try {
    record = newRun(deps, { ...of, selection: {} });
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return { runId: '', passed: false, summary: `its draft has no case to run (${error.message})` };
  }
  await queueRun(deps, { ...record, draft: true, origin: 'publish' });
  const waitMs = deps.waitMs ?? GATE_WAIT_MS;
  const run = await runEnd(deps, record._id, waitMs);
  if (run) return { runId: run._id, passed: run.status === 'passed', summary: runSummary(run) };
  throw new PlatformError(
    'evaluation_timeout',
    `The evaluation gate's run ${record._id} had not ended after ${Math.round(waitMs / 1000)} s; see it with ` +
      '`cairn eval show` and publish again when it has.',
    { status: 504 },
  );
}

/**
 * Run `runId` once it has ended, read every {@link GATE_POLL_MS}; undefined when it has not ended after `waitMs`.
 * Shared by the gate and the design agent's `design_run_evaluations` (core/boot/design-wiring.ts).
 */
export async function runEnd(
  deps: Pick<GateDeps, 'docs' | 'clock' | 'sleep'>,
  runId: string,
  waitMs: number,
): Promise<EvaluationRunRecord | undefined> {
  const deadline = deps.clock.now().getTime() + waitMs;
  for (;;) {
    const run = await runsOf(deps).findOne({ _id: runId });
    if (run && finalEvaluationStatuses.includes(run.status)) return run;
    if (deps.clock.now().getTime() > deadline) return undefined;
    await deps.sleep(GATE_POLL_MS);
  }
}

/** The id of a run of every case of build `buildId` of agent `agentId` that passed, if any (the newest). */
export async function passingRunOf(
  deps: Pick<EvaluationDeps, 'docs'>,
  agentId: string,
  buildId: string,
): Promise<string | undefined> {
  const passed = await runsOf(deps).find({ agentId, buildId, status: 'passed' }, { sort: { createdAt: -1 } });
  return passed.find((r) => r.selection.workflow === undefined && r.selection.stem === undefined)?._id;
}
