/**
 * One evaluation run as the Evaluations tab shows it once chosen: its status, build, cases chosen, start and
 * duration (asked again every second until it ends), why it ended `error` when it did, and each case's verdict:
 * title, id, passed or failed, duration, a link to its session's transcript (`/sessions/<id>`), the failing step
 * with the assertion's expected and actual (or the platform's refusal), the judge's score and reason of grade steps,
 * and every step taken. Cases still to run are listed as waiting (or running).
 *
 * Source: docs/decisions.md D20 (Evaluations); docs/agent-format.md § Tests (steps, assertions).
 */
import { Link } from 'wouter';
import type { CaseResult, StepResult } from '../../../../../core/evaluation/run-case.ts';
import { ErrorMessage, Loading, RelativeTime } from '../../../ui/kit.tsx';
import {
  type EvaluationRunView, formatDuration, isActive, judgement, runDuration, useEvaluationRun,
} from './evaluation-queries.ts';

const statusText = {
  queued: 'Queued', running: 'Running', passed: 'Passed', failed: 'Failed', error: 'Error',
} as const;
const statusBadge = {
  queued: 'badge badge-warn', running: 'badge badge-warn', passed: 'badge badge-ok', failed: 'badge badge-error',
  error: 'badge badge-error',
} as const;

/** The badge class of a passed or failed case or step. */
export const passBadge = (passed: boolean): string => (passed ? 'badge badge-ok' : 'badge badge-error');

/** A run's status as a badge. */
export function RunStatus({ run }: { run: EvaluationRunView }) {
  return <span className={statusBadge[run.status]}>{statusText[run.status]}</span>;
}

/** Chips for what is special about a run (only the fields the API sends). */
export function RunChips({ run }: { run: EvaluationRunView }) {
  const chips: [string, string][] = [];
  if (run.draft === true) chips.push(['draft', 'Ran on the draft, not the published build']);
  if (run.origin === 'publish') chips.push(['gate', 'Started by a publish while the evaluation gate is on']);
  if (run.replayOf) chips.push(['replay', `Replays run ${run.replayOf}`]);
  if (run.cassette === 'record') chips.push(['recorded', 'Recorded the model’s answers for replays']);
  if (chips.length === 0) return null;
  return (
    <span className="chips run-chips">
      {chips.map(([text, title]) => <span key={text} className="badge" title={title}>{text}</span>)}
    </span>
  );
}

const selectionText = ({ selection: s }: EvaluationRunView): string =>
  s.stem ? `case ${s.workflow ? `${s.workflow}/` : ''}${s.stem}`
    : s.workflow ? `the cases of ${s.workflow}`
    : 'every case';

/** Run `runId` of `env` of `agent` with its cases. */
export function EvaluationRun({ agent, env, runId }: { agent: string; env: string; runId: string }) {
  const shown = useEvaluationRun(agent, env, runId);
  if (shown.isPending) return <Loading what="Loading the run" />;
  if (shown.isError) {
    return <ErrorMessage error={shown.error} retry={() => void shown.refetch()} title="Could not load the run" />;
  }
  const run = shown.data;
  const duration = runDuration(run);
  const waiting = run.caseIds.filter((id) => !run.cases.some((c) => c.id === id));
  return (
    <section className="card eval-run" aria-label={`Run ${run.id}`}>
      <h3>Run <code>{run.id}</code> <RunStatus run={run} /> <RunChips run={run} /></h3>
      <p>
        <strong>{run.summary.passed} of {run.summary.total}</strong> case{run.summary.total === 1 ? '' : 's'} passed
      </p>
      <dl className="facts">
        <dt>Build</dt><dd><code>{run.buildId}</code></dd>
        <dt>Cases</dt><dd>{selectionText(run)}</dd>
        <dt>Started</dt><dd><RelativeTime at={run.startedAt ?? run.createdAt} /> by {run.startedBy}</dd>
        <dt>Duration</dt><dd>{duration === undefined ? 'not started' : formatDuration(duration)}</dd>
        <dt>Cost</dt><dd>${(run.costUsd ?? 0).toFixed(4)} <span className="muted">
          (judges ${(run.judgeCostUsd ?? 0).toFixed(4)}, apart)</span></dd>
        {run.replayOf ? <><dt>Replay of</dt><dd><code>{run.replayOf}</code></dd></> : null}
      </dl>
      {isActive(run) ? (
        <p className="small muted" role="status">
          {run.status === 'queued' ? 'Queued: it starts when the runs before it have ended'
            : `Running ${run.current ?? 'the next case'} (${run.summary.done} of ${run.summary.total} done)`};
          this refreshes every second.
        </p>
      ) : null}
      {run.error ? <p className="error-text" role="alert">{run.error.message} <code>{run.error.code}</code></p> : null}
      <ul className="eval-cases" aria-label="Cases">
        {run.cases.map((c) => <li key={c.id}><CaseCard result={c} /></li>)}
        {waiting.map((id) => (
          <li key={id} className="eval-case">
            <span className="badge">{id === run.current ? 'running' : 'waiting'}</span> <code>{id}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function CaseCard({ result: c }: { result: CaseResult }) {
  const failing = c.failingStep === undefined ? undefined : c.steps.find((s) => s.index === c.failingStep);
  const judged = c.steps.filter((s) => s.passed && judgement(s) !== undefined);
  return (
    <article className={`eval-case ${c.passed ? 'case-passed' : 'case-failed'}`} aria-label={`Case ${c.id}`}>
      <div className="eval-case-head">
        <span className={passBadge(c.passed)}>{c.passed ? 'Passed' : 'Failed'}</span>
        <strong>{c.title}</strong>
        <code>{c.id}</code>
        <span className="muted small">{formatDuration(c.durationMs)}</span>
        {c.sessionId
          ? (
            <Link href={`/sessions/${encodeURIComponent(c.sessionId)}`}>
              Transcript<span className="visually-hidden"> of {c.id}</span>
            </Link>
          )
          : <span className="muted small">no session</span>}
      </div>
      {failing ? <StepFailure step={failing} /> : null}
      {judged.map((s) => <JudgeNote key={s.index} step={s} />)}
      <details className="eval-steps">
        <summary>Steps taken ({c.steps.length})</summary>
        <ul>
          {c.steps.map((s) => (
            <li key={s.index}>
              Step {s.index + 1} <code>{s.kind}</code>{' '}
              <span className={passBadge(s.passed)}>{s.passed ? 'passed' : 'failed'}</span>
            </li>
          ))}
        </ul>
      </details>
    </article>
  );
}

/** The failing step: the assertion's expected and actual, the judge's score, or the platform's refusal. */
function StepFailure({ step }: { step: StepResult }) {
  const judged = judgement(step);
  return (
    <div className="eval-failure">
      <p>Failed at <strong>step {step.index + 1}</strong> (<code>{step.kind}</code>)</p>
      {step.result ? (
        <dl className="facts">
          <dt>Expected</dt><dd>{step.result.expected}</dd>
          <dt>Actual</dt><dd>{step.result.actual}</dd>
          {judged ? <><dt>Judge’s score</dt><dd>{judged.score}</dd></> : null}
        </dl>
      ) : step.error ? <p>{step.error.message} <code>{step.error.code}</code></p> : null}
    </div>
  );
}

/** A passed grade step: the judge's score and reason. */
function JudgeNote({ step }: { step: StepResult }) {
  const judged = judgement(step)!;
  return (
    <p className="small eval-judge">
      Step {step.index + 1} (<code>{step.kind}</code>): the judge scored <strong>{judged.score}</strong>
      {judged.reason ? <>: {judged.reason}</> : null}
    </p>
  );
}
