/**
 * Evaluation runs: a run takes a published build of an agent's environment and all its cases, one workflow's or
 * one case; each case runs as a session of its own marked with the run (belonging to no member). The run is kept
 * with the build it ran on, its per-case verdicts, durations and the judges' usage.
 *
 * Source: issue "Evaluations" § Runs, § Results; spec/platform-service.md § Processes (the `evaluations` queue).
 */
import type { ModelUsage } from '../ports/model-provider.ts';
import type { CaseSelection } from './cases.ts';
import type { CaseResult } from './run-case.ts';

/** Collections of evaluations. */
export const evaluationCollections = {
  runs: 'evaluation_runs',
  /** The model calls of recording and replaying runs (their cassettes): ./cassette-store.ts. */
  calls: 'evaluation_calls',
} as const;

/** Version of the evaluation collections' documents. */
export const evaluationSchemaVersion = 1 as const;

/** The queue of evaluation runs (job name `run`, job id the run's id); the dispatcher runs one run at a time. */
export const EVALUATION_QUEUE = 'evaluations';

/** Statuses of a run: `queued`, `running`, then `passed` (every case), `failed` (a case failed) or `error`. */
export const evaluationStatuses = ['queued', 'running', 'passed', 'failed', 'error'] as const;
export type EvaluationStatus = typeof evaluationStatuses[number];
/** Statuses after which a run changes no more. */
export const finalEvaluationStatuses: readonly EvaluationStatus[] = ['passed', 'failed', 'error'];

/** A run (collection `evaluation_runs`, id `ev-<hex>`). */
export interface EvaluationRunRecord {
  _id: string;
  schemaVersion: typeof evaluationSchemaVersion;
  orgId: string;
  agentId: string;
  /** The agent's slug when the run started (for reports). */
  agentSlug: string;
  environment: string;
  buildId: string;
  commitId: string;
  /** Whether it ran on the environment's draft (a candidate build of it), not on a published build. */
  draft?: boolean;
  /** Who started it: a member (`member`, the default) or a publish through the evaluation gate (`publish`). */
  origin?: 'member' | 'publish';
  /** A run keeps its model calls (a cassette) when it records (`record`) or replays another run (`replay`). */
  cassette?: 'record' | 'replay';
  /** The recorded run a replay answers its model calls from. */
  replayOf?: string;
  selection: CaseSelection;
  status: EvaluationStatus;
  /** The ids (`<workflow>/<stem>`) of the cases it runs, in order. */
  caseIds: string[];
  /** Verdicts of the cases done so far, in order. */
  cases: CaseResult[];
  /** The case running now, while one runs (a dispatcher that stops leaves it here: the next one fails it). */
  current: string | null;
  /** Why a run ended `error` (no case could run), else null. */
  error: { code: string; message: string } | null;
  /** The member who started it (their subject). */
  startedBy: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  /** Usage of the judges of its grades, apart from the sessions' own. */
  judgeUsage: ModelUsage;
  /** Cost in USD of the cases' sessions' model calls so far (absent on runs recorded before costs were kept). */
  costUsd?: number;
  /** Cost in USD of its judges' calls so far, apart from the sessions'. */
  judgeCostUsd?: number;
}
