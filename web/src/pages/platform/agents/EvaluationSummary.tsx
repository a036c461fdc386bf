/**
 * The Overview tab's evaluation lines: whether the environment's evaluation gate is on (a publish then runs the
 * draft's cases first, and a promotion needs a passing run), and the result of the newest run of the published
 * build, linking to it on the Evaluations tab.
 *
 * Source: docs/decisions.md D20 (Evaluations).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../../api/client.ts';
import type { EnvironmentDetail } from '../../../../../core/agent/api-views.ts';
import { Button, ErrorMessage, RelativeTime } from '../../../ui/kit.tsx';
import { agentKeys, environmentPath } from './queries.ts';
import { passBadge, RunStatus } from './EvaluationRun.tsx';
import { newestRunOf, useEvaluationRuns } from './evaluation-queries.ts';

/** The lines of `env` of `agent`; `href` is its Evaluations tab's path. */
export function EvaluationSummary({ agent, env, detail, href }: {
  agent: string; env: string; detail: EnvironmentDetail; href: string;
}) {
  const gate = detail.evaluationGate;
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => api(environmentPath(agent, env, ''), { method: 'PATCH', body: { evaluationGate: !gate } }),
    onSuccess: () => client.invalidateQueries({ queryKey: agentKeys.environment(agent, env) }),
  });
  return (
    <section className="card eval-summary" aria-label="Evaluations">
      <p>
        <strong>Evaluation gate: {gate ? 'on' : 'off'}</strong>
        {gate ? <> — a publish runs the draft’s cases first; a promotion needs a passing run</> : null}{' '}
        <Button kind="link" onClick={() => toggle.mutate()} busy={toggle.isPending}>
          {gate ? 'Turn the gate off' : 'Turn the gate on'}
        </Button>
      </p>
      {toggle.isError ? <ErrorMessage error={toggle.error} title="The setting was not changed" /> : null}
      <p>
        Published build’s last run:{' '}
        {detail.published
          ? <LastRun agent={agent} env={env} buildId={detail.published.buildId} href={href} />
          : <span className="muted">nothing is published yet</span>}
      </p>
    </section>
  );
}

function LastRun({ agent, env, buildId, href }: { agent: string; env: string; buildId: string; href: string }) {
  const runs = useEvaluationRuns(agent, env);
  if (runs.isPending) return <span className="muted">reading its evaluation runs…</span>;
  if (runs.isError) {
    return <span className="muted">the runs could not be read (<Link href={href}>Evaluations</Link>)</span>;
  }
  const run = newestRunOf(runs.data, buildId);
  if (!run) return <span>no run of the published build yet (<Link href={href}>Evaluations</Link>)</span>;
  const verdict = run.status === 'passed' || run.status === 'failed' ? run.status : null;
  const counts = `${run.summary.passed} of ${run.summary.total}`;
  return (
    <Link href={`${href}?run=${encodeURIComponent(run.id)}`} className="eval-last">
      {verdict ? <><span className={passBadge(verdict === 'passed')}>{verdict}</span> {counts}</>
        : <RunStatus run={run} />}
      {' · '}<RelativeTime at={run.endedAt ?? run.startedAt ?? run.createdAt} />
    </Link>
  );
}
