/**
 * An environment's Evaluations tab: Run evaluations (every case of the published build, as a queued run; Run on the
 * draft: of the draft's build), the
 * runs newest first (status, cases passed of all, build, started, duration; chips for a run on the draft, one a
 * gated publish started, a replay), a small chart of the pass rate of the last runs, and the run chosen
 * (`?run=<id>`) with its cases (./EvaluationRun.tsx). The list is asked again every second while a run is queued
 * or running. Without runs it says what a run does and where cases live.
 *
 * Source: docs/decisions.md D20 (Evaluations); docs/agent-format.md § Tests.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { Button, ErrorMessage, Loading, RelativeTime, usePaged } from '../../../ui/kit.tsx';
import { EvaluationRun, RunChips, RunStatus } from './EvaluationRun.tsx';
import {
  type EvaluationRunView, formatDuration, passRate, runDuration, startRun, useEvaluationRuns,
} from './evaluation-queries.ts';
import { agentKeys } from './queries.ts';

/** The most runs the chart shows. */
export const chartedRuns = 20;

/** The tab of `env` of `agent`; `href` is the tab's own path (a run is chosen with `?run=<id>` on it). */
export function EvaluationsTab({ agent, env, href }: { agent: string; env: string; href: string }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const chosen = new URLSearchParams(useSearch()).get('run');
  const runs = useEvaluationRuns(agent, env);
  const start = useMutation({
    mutationFn: (draft: boolean) => startRun(agent, env, draft),
    onSuccess: (run) => {
      client.setQueryData(agentKeys.evaluation(agent, env, run.id), run);
      void client.invalidateQueries({ queryKey: agentKeys.evaluations(agent, env), exact: true });
      navigate(`${href}?run=${encodeURIComponent(run.id)}`);
    },
  });
  const list = runs.data ?? [];
  return (
    <div className="evaluations">
      <div className="page-header">
        <h2>Evaluations</h2>
        <div className="actions">
          <Button onClick={() => start.mutate(true)} disabled={start.isPending}>Run on the draft</Button>
          <Button kind="primary" onClick={() => start.mutate(false)} busy={start.isPending}>Run evaluations</Button>
        </div>
      </div>
      <p className="small muted">
        A run takes the published build’s cases (or the draft’s) one after the other, each as a session of its own,
        and records which passed.
      </p>
      {start.isError ? <ErrorMessage error={start.error} title="The run was not started" /> : null}
      {runs.isPending ? <Loading what="Loading evaluation runs" />
        : runs.isError ? <ErrorMessage error={runs.error} retry={() => void runs.refetch()} />
        : list.length === 0 ? <EmptyState />
        : (
          <>
            <PassRateChart runs={list} />
            <RunsTable runs={list} href={href} chosen={chosen} />
          </>
        )}
      {chosen ? <EvaluationRun key={chosen} agent={agent} env={env} runId={chosen} /> : null}
    </div>
  );
}

function EmptyState() {
  return (
    <div className="empty">
      <p><strong>No evaluation runs yet.</strong></p>
      <p>
        A run opens a session for each case of the published build, takes its steps (messages, decisions,
        deliveries) and checks its assertions; each case passes or fails at the step that failed it. Cases live in
        {' '}<code>workflows/&lt;slug&gt;/tests/*.test.yaml</code> of the agent’s files.
      </p>
    </div>
  );
}

function RunsTable({ runs, href, chosen }: { runs: EvaluationRunView[]; href: string; chosen: string | null }) {
  const { rows, pager } = usePaged(runs);
  return (
    <>
      <div className="table-wrap">
        <table className="stack-table runs-table">
          <thead>
            <tr>
              <th scope="col">Run</th><th scope="col">Status</th><th scope="col">Passed</th><th scope="col">Build</th>
              <th scope="col">Started</th><th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((run) => {
              const duration = runDuration(run);
              const link = `${href}?run=${encodeURIComponent(run.id)}`;
              return (
                <tr key={run.id} className={run.id === chosen ? 'chosen' : undefined}>
                  <td data-label="Run"><div>
                    <Link href={link} aria-current={run.id === chosen || undefined}><code>{run.id}</code></Link>
                    {' '}<RunChips run={run} />
                  </div></td>
                  <td data-label="Status"><span><RunStatus run={run} /></span></td>
                  <td data-label="Passed"><span>{run.summary.passed} of {run.summary.total}</span></td>
                  <td data-label="Build"><code title={run.buildId}>{run.buildId.slice(0, 12)}</code></td>
                  <td data-label="Started"><RelativeTime at={run.startedAt ?? run.createdAt} /></td>
                  <td data-label="Duration">
                    <span>{duration === undefined ? '—' : formatDuration(duration)}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {pager}
    </>
  );
}

/** The pass rate (passed of all cases) of the last {@link chartedRuns} ended runs as a line, oldest left. */
export function PassRateChart({ runs }: { runs: EvaluationRunView[] }) {
  const ended = runs.filter((r) => r.endedAt !== null && passRate(r) !== undefined).slice(0, chartedRuns).reverse();
  if (ended.length === 0) return null;
  const [width, height, pad] = [240, 48, 5];
  const x = (i: number) => (ended.length === 1 ? width / 2 : pad + (i * (width - 2 * pad)) / (ended.length - 1));
  const y = (rate: number) => pad + (1 - rate) * (height - 2 * pad);
  const points = ended.map((r, i) => ({ run: r, x: x(i), y: y(passRate(r)!) }));
  const percent = (r: EvaluationRunView) => `${Math.round(passRate(r)! * 100)}%`;
  const label = `Pass rate of the last ${ended.length} run${ended.length === 1 ? '' : 's'}`;
  const latest = ended[ended.length - 1]!;
  return (
    <figure className="pass-rate">
      <div className="pass-rate-plot">
        <span className="pass-rate-axis" aria-hidden="true"><span>100%</span><span>0%</span></span>
        <svg role="img" aria-label={`${label}, oldest first: ${ended.map(percent).join(', ')}`}
          viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
          <title>{label}</title>
          <line x1={0} x2={width} y1={y(1)} y2={y(1)} className="grid" />
          <line x1={0} x2={width} y1={y(0)} y2={y(0)} className="grid" />
          {points.length > 1
            ? <polyline points={points.map((p) => `${p.x},${p.y}`).join(' ')} className="line" />
            : null}
          {points.map((p) => (
            <circle key={p.run.id} cx={p.x} cy={p.y} r={3.5}
              className={p.run.status === 'passed' ? 'dot ok' : 'dot bad'}>
              <title>{`${p.run.id}: ${p.run.summary.passed} of ${p.run.summary.total} passed`}</title>
            </circle>
          ))}
        </svg>
      </div>
      <figcaption className="small">
        {label} <span className="muted">(oldest left)</span>; latest <strong>{percent(latest)}</strong>
        {' '}({latest.summary.passed} of {latest.summary.total})
      </figcaption>
    </figure>
  );
}
