/**
 * /agents/<agent>: the agent's environments with their draft and published planes.
 *
 * Source: spec/platform-service.md (What the service does); docs/decisions.md D10 (Agents and environments).
 */
import { Link } from 'wouter';
import { ErrorMessage, Loading, RelativeTime, usePaged } from '../../../ui/kit.tsx';
import { useAgent } from './queries.ts';

/** The environments of agent id `agent`; `agentRef` is how the URL names it. */
export function EnvironmentList({ agentRef, agent }: { agentRef: string; agent: string }) {
  const detail = useAgent(agent);
  const { rows, pager } = usePaged(detail.data?.environments ?? []);
  return (
    <div>
      <p className="crumbs"><Link href="/agents">Agents</Link> / <span>{detail.data?.name ?? agentRef}</span></p>
      <div className="page-header"><h1>{detail.data?.name ?? agentRef}</h1></div>
      {detail.isPending ? <Loading what="Loading the agent" /> : detail.isError ? <ErrorMessage error={detail.error} retry={() => void detail.refetch()} /> : (
        <>
          {detail.data.description ? <p>{detail.data.description}</p> : null}
          <h2>Environments</h2>
          {detail.data.environments.length === 0 ? <p className="empty">No environments yet: the agent’s first save creates <code>main</code>.</p> : (
            <div className="table-wrap">
              <table className="stack-table">
                <thead><tr><th scope="col">Environment</th><th scope="col">Draft</th><th scope="col">Published</th></tr></thead>
                <tbody>
                  {rows.map((e) => (
                    <tr key={e.name}>
                      <td data-label="Environment"><Link href={`/agents/${encodeURIComponent(agentRef)}/environments/${encodeURIComponent(e.name)}/overview`}>{e.name}</Link></td>
                      <td data-label="Draft"><div><code>{e.draft.commitId.slice(0, 12)}</code> saved <RelativeTime at={e.draft.savedAt} /></div></td>
                      <td data-label="Published">{e.published
                        ? <div>build <code>{e.published.buildId.slice(0, 12)}</code>, {e.published.counts.workflows} workflow(s), <RelativeTime at={e.published.publishedAt} />{e.published.commitId === e.draft.commitId ? null : <span className="badge badge-warn">draft changed</span>}</div>
                        : <span className="muted">not published</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {pager}
        </>
      )}
    </div>
  );
}
