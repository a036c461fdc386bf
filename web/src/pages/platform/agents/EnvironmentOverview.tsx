/**
 * An environment's Overview tab: the draft and published planes (revision, build, workflows), the
 * environment operations (Publish, Restore a build, Discard, Promote to another environment) with the
 * queued operation's status until it ends and the validator's problems (file, line, reason) when a
 * publish is refused, whether the evaluation gate is on and the published build's last evaluation run
 * (./EvaluationSummary.tsx), and each published workflow's spend caps with the spend so far per period.
 *
 * Source: spec/platform-service.md (What the service does; § Errors); docs/decisions.md D10 (Agents and
 * environments).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { EnvironmentDetail, OperationJson } from '../../../../../core/agent/api-views.ts';
import { Button, ErrorMessage, Loading, RelativeTime, SelectField, TextField, usePaged } from '../../../ui/kit.tsx';
import { useEnvironmentOperation } from './operations.ts';
import { useEnvironment } from './queries.ts';
import { EvaluationSummary } from './EvaluationSummary.tsx';
import { SpendCaps } from './SpendCaps.tsx';

/**
 * The Overview tab of `env` of `agent`; `environments` names the agent's environments (Promote's choices),
 * `evaluationsHref` the path of its Evaluations tab.
 */
export function EnvironmentOverview({ agent, env, environments, evaluationsHref }: {
  agent: string; env: string; environments: string[]; evaluationsHref: string;
}) {
  const detail = useEnvironment(agent, env);
  if (detail.isPending) return <Loading what="Loading the environment" />;
  if (detail.isError) return <ErrorMessage error={detail.error} retry={() => void detail.refetch()} />;
  const e = detail.data;
  return (
    <div className="env-overview">
      <div className="planes">
        <Plane title="Draft">
          <dl className="facts">
            <dt>Revision</dt><dd><code>{e.draft.commitId.slice(0, 12)}</code></dd>
            <dt>Saved</dt><dd><RelativeTime at={e.draft.savedAt} /></dd>
            <dt>Changes</dt><dd>{e.published?.commitId === e.draft.commitId ? 'none since the last publish' : e.published ? 'not yet published' : 'never published'}</dd>
          </dl>
        </Plane>
        <Plane title="Published">
          {e.published ? (
            <dl className="facts">
              <dt>Build</dt><dd><code>{e.published.buildId}</code></dd>
              <dt>Revision</dt><dd><code>{e.published.commitId.slice(0, 12)}</code></dd>
              <dt>Published</dt><dd><RelativeTime at={e.published.publishedAt} /> by {e.published.publishedBy}</dd>
              <dt>Contents</dt><dd>{e.published.counts.workflows} workflow(s), {e.published.counts.states} state(s), {e.published.counts.triggers} trigger(s), {e.published.counts.skills} skill(s)</dd>
              <dt>Workflows</dt><dd>{e.workflows.length ? e.workflows.map((w) => <code key={w} className="chip">{w}</code>) : <span className="muted">none</span>}</dd>
            </dl>
          ) : <p className="muted">Nothing is published yet: Publish validates the draft and serves it.</p>}
        </Plane>
      </div>
      <EvaluationSummary agent={agent} env={env} detail={e} href={evaluationsHref} />
      <Operations agent={agent} env={env} detail={e} environments={environments.filter((n) => n !== env)} />
      <h2>Spend caps</h2>
      {e.workflows.length === 0 ? <p className="empty">Spend caps are set per published workflow; publish first.</p>
        : e.workflows.map((w) => <SpendCaps key={w} agent={agent} env={env} workflow={w} />)}
    </div>
  );
}

function Plane({ title, children }: { title: string; children: ReactNode }) {
  return <section className="card plane" aria-label={`${title} plane`}><h2>{title}</h2>{children}</section>;
}

/** The operation buttons and the status of the last operation asked from this page. */
function Operations({ agent, env, detail, environments }: { agent: string; env: string; detail: EnvironmentDetail; environments: string[] }) {
  const defaultBuild = detail.published?.buildId ?? detail.builds[0]?.id ?? '';
  const [buildId, setBuildId] = useState(defaultBuild);
  useEffect(() => setBuildId(defaultBuild), [defaultBuild]);
  const [promoteTo, setPromoteTo] = useState('');
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const { ask, opId, operation, op, running } = useEnvironmentOperation(agent, env, () => setConfirmDiscard(false));
  const buildOptions: [string, string][] = detail.builds.map((b) => [b.id, `${b.id.slice(0, 12)} · ${b.environment} · ${new Date(b.publishedAt).toLocaleString()}${b.id === detail.published?.buildId ? ' (published here)' : ''}`]);
  return (
    <section className="card operations" aria-labelledby="operations-heading">
      <h2 id="operations-heading">Operations</h2>
      <p className="small muted">Each runs as a queued operation; its status shows here until it ends.</p>
      <div className="op-grid">
        <div className="op">
          <p>Validate the draft and serve it as a new build.</p>
          <Button kind="primary" onClick={() => ask.mutate({ kind: 'publish' })} disabled={running}>Publish</Button>
        </div>
        <div className="op">
          {buildOptions.length ? <SelectField label="Build to restore into the draft" options={buildOptions} value={buildId} onChange={(ev) => setBuildId(ev.target.value)} /> : <p className="muted">No build to restore yet.</p>}
          <Button onClick={() => ask.mutate({ kind: 'restore', buildId })} disabled={running || !buildId}>Restore</Button>
        </div>
        <div className="op">
          <p>Put the published files back into the draft.</p>
          {confirmDiscard ? (
            <div className="row-actions">
              <Button kind="danger" onClick={() => ask.mutate({ kind: 'discard' })} disabled={running}>Discard the draft’s changes</Button>
              <Button onClick={() => setConfirmDiscard(false)}>Cancel</Button>
            </div>
          ) : <Button onClick={() => setConfirmDiscard(true)} disabled={running || !detail.published}>Discard</Button>}
        </div>
        <div className="op">
          <TextField label="Promote the published build to" hint={environments.length ? `Existing: ${environments.join(', ')}; a new name creates it.` : 'A new name creates the environment.'} value={promoteTo} onChange={(ev) => setPromoteTo(ev.target.value.trim())} placeholder="staging" list="promote-targets" />
          <datalist id="promote-targets">{environments.map((n) => <option key={n} value={n} />)}</datalist>
          <Button onClick={() => ask.mutate({ kind: 'promote', to: promoteTo })} disabled={running || !promoteTo || !detail.published}>Promote</Button>
        </div>
      </div>
      {ask.isError ? <ErrorMessage error={ask.error} title="The operation was not queued" /> : null}
      {opId !== null ? (operation.isError ? <ErrorMessage error={operation.error} retry={() => void operation.refetch()} title="Could not read the operation" />
        : op ? <OperationStatus op={op} /> : <Loading what="Queued" />) : null}
    </section>
  );
}

const statusText = { queued: 'Queued', running: 'Running', succeeded: 'Succeeded', failed: 'Failed' } as const;
const verb = { publish: 'Publish', restore: 'Restore', discard: 'Discard', promote: 'Promote' } as const;

/** An operation's status; a refused publish lists the validator's problems (file, line, reason). */
export function OperationStatus({ op }: { op: OperationJson }) {
  const problems = op.error?.problems ?? [];
  const { rows, pager } = usePaged(problems);
  return (
    <div className={`op-status op-${op.status}`} role="status" aria-live="polite">
      <p>
        <strong>{verb[op.kind]}{op.kind === 'promote' && op.input.to ? ` to ${op.input.to}` : ''}: {statusText[op.status]}</strong>
        {' '}<span className="muted small">asked by {op.requestedBy} <RelativeTime at={op.queuedAt} />{op.endedAt ? <>, ended <RelativeTime at={op.endedAt} /></> : null}</span>
      </p>
      {op.status === 'succeeded' && op.result?.published ? <p className="small">Published build: <code>{op.result.published.buildId}</code></p> : null}
      {op.error ? <p>{op.error.message}</p> : null}
      {problems.length ? (
        <>
          <div className="table-wrap">
            <table className="stack-table problems">
              <thead><tr><th scope="col">File</th><th scope="col">Line</th><th scope="col">Reason</th></tr></thead>
              <tbody>{rows.map((p, i) => <tr key={`${p.file}:${p.line}:${i}`}><td data-label="File"><code>{p.file}</code></td><td data-label="Line"><span>{p.line}:{p.column}</span></td><td data-label="Reason"><div>{p.key ? <code>{p.key}</code> : null} {p.message}</div></td></tr>)}</tbody>
            </table>
          </div>
          {pager}
        </>
      ) : null}
    </div>
  );
}
