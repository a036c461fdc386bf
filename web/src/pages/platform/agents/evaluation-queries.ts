/**
 * Server state of an environment's evaluation runs: the run as the API shows it (dates as ISO text, its summary
 * counted), the runs list and one run (each asked again every second while a run is queued or running), starting
 * a run, and the small sums the Evaluations tab and the Overview show (pass rate, duration, the newest run of a
 * build).
 *
 * Source: docs/decisions.md D20 (Evaluations); docs/agent-format.md § Tests.
 */
import { useQuery } from '@tanstack/react-query';
import type { EvaluationRunRecord, EvaluationStatus } from '../../../../../core/evaluation/model.ts';
import type { StepResult } from '../../../../../core/evaluation/run-case.ts';
import { api } from '../../../api/client.ts';
import { agentKeys, environmentPath } from './queries.ts';

type Dates = 'createdAt' | 'startedAt' | 'endedAt';

/** A run as `GET …/evaluations` answers it; `draft`, `origin`, `record`, `replayOf` only when the API sends them. */
export type EvaluationRunView = Omit<EvaluationRunRecord, '_id' | 'schemaVersion' | 'orgId' | Dates> & {
  id: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  summary: { total: number; done: number; passed: number; failed: number };
};

/** How often a queued or running run is asked about, in ms. */
export const evaluationPollMs = 1000;

/** Whether a run may still change. */
export const isActive = (run: { status: EvaluationStatus }): boolean =>
  run.status === 'queued' || run.status === 'running';

/** `…/evaluations[/<run>]` of `env` of `agent`. */
export const evaluationsPath = (agent: string, env: string, run?: string): string =>
  environmentPath(agent, env, `/evaluations${run === undefined ? '' : `/${encodeURIComponent(run)}`}`);

/** GET …/evaluations: the runs, newest first, asked again every second while one is queued or running. */
export function useEvaluationRuns(agent: string, env: string) {
  return useQuery({
    queryKey: agentKeys.evaluations(agent, env),
    queryFn: () => api<{ runs: EvaluationRunView[] }>(evaluationsPath(agent, env)).then((r) => r.runs),
    refetchInterval: (query) => (query.state.data?.some(isActive) ? evaluationPollMs : false),
  });
}

/** GET …/evaluations/:run, asked again every second until the run ends. */
export function useEvaluationRun(agent: string, env: string, run: string | null) {
  return useQuery({
    queryKey: agentKeys.evaluation(agent, env, run ?? ''),
    queryFn: () => api<{ run: EvaluationRunView }>(evaluationsPath(agent, env, run!)).then((r) => r.run),
    enabled: run !== null,
    refetchInterval: (query) => {
      const run = query.state.data;
      return query.state.status !== 'error' && (!run || isActive(run)) ? evaluationPollMs : false;
    },
  });
}

/** POST …/evaluations {} (every case of the published build) → the queued run. */
export function startRun(agent: string, env: string, draft = false): Promise<EvaluationRunView> {
  const body = draft ? { draft: true } : {};
  return api<{ run: EvaluationRunView }>(evaluationsPath(agent, env), { method: 'POST', body }).then((r) => r.run);
}

/** Passed cases over the run's cases (0–1), or undefined for a run of no case. */
export const passRate = (run: EvaluationRunView): number | undefined =>
  run.summary.total > 0 ? run.summary.passed / run.summary.total : undefined;

/** A duration in ms as `850 ms`, `12.3 s`, `4 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** How long a run took (or has taken so far), or undefined before it started. */
export function runDuration(run: EvaluationRunView, now = Date.now()): number | undefined {
  if (!run.startedAt) return undefined;
  return (run.endedAt ? Date.parse(run.endedAt) : now) - Date.parse(run.startedAt);
}

/** The newest run of `buildId` (runs come newest first; a run of the draft counts when it ran on that build). */
export const newestRunOf = (runs: EvaluationRunView[], buildId: string): EvaluationRunView | undefined =>
  runs.find((r) => r.buildId === buildId);

/** A step's judge score and reason, when it is a grade the judge answered. */
export function judgement(step: StepResult): { score: number; reason?: string } | undefined {
  const result = step.result as { score?: number; reason?: string } | undefined;
  return typeof result?.score === 'number' ? { score: result.score, reason: result.reason } : undefined;
}
