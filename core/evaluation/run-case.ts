/**
 * One evaluation case from its first step to its verdict: the case's session is opened (with the first action when
 * the case starts with one), each action is taken and waited for until the session settles, and each assertion is
 * checked against what the session then shows. The case stops at its first failing step and reports it; an action
 * the platform refuses (a decision the session does not wait for, a spent cap) fails its step with the refusal.
 *
 * The driver (the session use cases and the turn queue, wired in core/boot) is a port of this module, so the same
 * loop runs on the real runtime and in tests.
 *
 * Source: docs/agent-format.md § Tests; issue "Evaluations" § Runs, § Assertions, § Results.
 */
import type { Step } from '../agent/documents-model.ts';
import type { Clock } from '../ports/clock.ts';
import { addUsage, NO_USAGE } from '../model/cost.ts';
import type { ModelUsage } from '../ports/model-provider.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { assertionOf, type AssertionResult, type CaseObservation, checkAssertion } from './assertions.ts';
import type { EvaluationCase } from './cases.ts';
import { gradeConversation, type GradeDeps, type GradeResult } from './grade.ts';

/** An action step of a case. */
export type CaseAction = { send: string } | { decide: { to: string; comment?: string } } | {
  deliver: Record<string, unknown>;
};

/** How a case reaches the runtime. */
export interface CaseDriver {
  /**
   * Opens the case's session at its trigger with its variables, taking `first` as its opening action when the case
   * starts with one (a message, a delivery); resolves with the session's id once its first turn is queued.
   * @throws PlatformError when the platform refuses (e.g. `spend_cap_reached`, `workflow_disabled`)
   */
  open(evaluationCase: EvaluationCase, first: CaseAction | undefined): Promise<{ sessionId: string }>;
  /** Takes `action` on the session (queues its turn). @throws PlatformError when the platform refuses it */
  act(sessionId: string, action: CaseAction): Promise<void>;
  /** Waits until the session has no turn queued or running; resolves with what it then shows. */
  settle(sessionId: string): Promise<CaseObservation>;
}

/** The outcome of one step. `result` for an assertion; `error` for an action the platform refused. */
export interface StepResult {
  /** The step's index in the case (0-based). */
  index: number;
  /** The step's key: `send`, `decide`, `deliver` or an assertion. */
  kind: string;
  passed: boolean;
  result?: AssertionResult | GradeResult;
  error?: { code: string; message: string };
}

/** A case's verdict. `failingStep` is the index of the step that failed it. */
export interface CaseResult {
  id: string;
  title: string;
  sessionId?: string;
  passed: boolean;
  failingStep?: number;
  steps: StepResult[];
  /** Wall time of the case, ms. */
  durationMs: number;
  /** Usage of the judges of its grades, apart from the session's own. */
  judgeUsage: ModelUsage;
  /** Cost in USD of the case's session's model calls (absent on runs recorded before costs were kept). */
  costUsd?: number;
  /** Cost in USD of its judges' calls, apart from the session's. */
  judgeCostUsd?: number;
}

/** What running a case needs. */
export interface RunCaseDeps {
  driver: CaseDriver;
  grade: GradeDeps;
  clock: Clock;
}

const actionOf = (step: Step): CaseAction | undefined =>
  step.send !== undefined
    ? { send: step.send }
    : step.decide !== undefined
    ? { decide: step.decide }
    : step.deliver !== undefined
    ? { deliver: step.deliver as Record<string, unknown> }
    : undefined;
const refusal = (error: unknown) =>
  isPlatformError(error)
    ? { code: error.code, message: error.message }
    : { code: 'internal_error', message: 'the platform failed to take the step; see the dispatcher log' };

/** What a case's steps gathered so far: their results, the judges' usage and cost, what the session last showed. */
interface CaseProgress {
  results: StepResult[];
  judgeUsage: ModelUsage;
  judgeCostUsd: number;
  observed?: CaseObservation;
}

/** The case's verdict from its progress: passed unless a step failed (the first failing one named). */
function caseVerdict(
  evaluationCase: EvaluationCase,
  progress: CaseProgress,
  at: { durationMs: number; sessionId?: string },
): CaseResult {
  const { results, observed } = progress;
  const failing = results.find((r) => !r.passed);
  return {
    id: evaluationCase.id,
    title: evaluationCase.case.title,
    ...(at.sessionId === undefined ? {} : { sessionId: at.sessionId }),
    passed: failing === undefined,
    ...(failing === undefined ? {} : { failingStep: failing.index }),
    steps: results,
    durationMs: at.durationMs,
    judgeUsage: progress.judgeUsage,
    costUsd: observed?.session.usage?.costUsd ?? 0,
    judgeCostUsd: progress.judgeCostUsd,
  };
}

/**
 * Opens the case's session with its first action (step 0 when it is one) and waits for it to settle.
 * @returns the session's id, or undefined when the opening failed (its step recorded failed)
 */
async function openStep(
  deps: RunCaseDeps,
  evaluationCase: EvaluationCase,
  first: CaseAction | undefined,
  progress: CaseProgress,
): Promise<string | undefined> {
  try {
    const { sessionId } = await deps.driver.open(evaluationCase, first);
    if (first !== undefined) progress.results.push({ index: 0, kind: Object.keys(first)[0]!, passed: true });
    progress.observed = await deps.driver.settle(sessionId);
    return sessionId;
  } catch (error) {
    const kind = first ? Object.keys(first)[0]! : 'open';
    progress.results.push({ index: 0, kind, passed: false, error: refusal(error) });
    return undefined;
  }
}

/** Takes action step `index` and waits for the session to settle. @returns whether the step passed */
async function actionStep(
  deps: RunCaseDeps,
  sessionId: string,
  step: { index: number; action: CaseAction },
  progress: CaseProgress,
): Promise<boolean> {
  const { index, action } = step;
  const kind = Object.keys(action)[0]!;
  try {
    const since = progress.observed!.messages.length;
    progress.observed = { ...progress.observed!, since };
    await deps.driver.act(sessionId, action);
    const settled = await deps.driver.settle(sessionId);
    progress.observed = { ...settled, since };
    progress.results.push({ index, kind, passed: true });
    return true;
  } catch (error) {
    progress.results.push({ index, kind, passed: false, error: refusal(error) });
    return false;
  }
}

/** Checks assertion step `index` against what the session shows (a grade asks its judge). @returns whether passed */
async function assertionStep(
  deps: RunCaseDeps,
  step: Step,
  index: number,
  progress: CaseProgress,
): Promise<boolean> {
  const observed = progress.observed!;
  const kind = assertionOf(step)!;
  const result = kind === 'grade'
    ? await gradeConversation(deps.grade, step.grade!, observed.messages)
    : checkAssertion(step, observed);
  const usage = (result as GradeResult).judgeUsage;
  if (usage !== undefined) progress.judgeUsage = addUsage(progress.judgeUsage, usage);
  progress.judgeCostUsd += (result as GradeResult).judgeCostUsd ?? 0;
  progress.results.push({ index, kind, passed: result.passed, result });
  return result.passed;
}

/**
 * Runs `evaluationCase` to its verdict. Never throws for the case's sake: a refusal or a driver failure fails the
 * step it happened at.
 */
export async function runCase(deps: RunCaseDeps, evaluationCase: EvaluationCase): Promise<CaseResult> {
  const started = deps.clock.now().getTime();
  const { steps } = evaluationCase.case;
  const progress: CaseProgress = { results: [], judgeUsage: NO_USAGE, judgeCostUsd: 0 };
  const verdict = (sessionId?: string) =>
    caseVerdict(evaluationCase, progress, { durationMs: deps.clock.now().getTime() - started, sessionId });
  const first = steps[0] === undefined ? undefined : actionOf(steps[0]);
  const sessionId = await openStep(deps, evaluationCase, first, progress);
  if (sessionId === undefined) return verdict();
  for (let index = first === undefined ? 0 : 1; index < steps.length; index += 1) {
    const step = steps[index]!;
    const action = actionOf(step);
    const passed = action !== undefined
      ? await actionStep(deps, sessionId, { index, action }, progress)
      : await assertionStep(deps, step, index, progress);
    if (!passed) return verdict(sessionId);
  }
  return verdict(sessionId);
}
