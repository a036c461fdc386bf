/**
 * /agents: the agents of every organization the member belongs to, each linking to its environments; New agent
 * opens the creation form (./CreateAgentForm.tsx).
 *
 * Source: spec/platform-service.md (What the service does); docs/decisions.md D10 (Agents and environments).
 */
import { useState } from 'react';
import { Link } from 'wouter';
import type { AgentView } from '../../../../../core/agent/api-views.ts';
import { Button, ErrorMessage, Loading, PageHeader, RelativeTime, usePaged } from '../../../ui/kit.tsx';
import { CreateAgentForm } from './CreateAgentForm.tsx';
import { agentRefOf, useAgentsOf, useOrganizations } from './queries.ts';

/** The agents list. */
export function AgentList() {
  const orgs = useOrganizations();
  const lists = useAgentsOf(orgs.data?.map((o) => o.id) ?? []);
  const failed = lists.find((l) => l.isError);
  const rows: { agent: AgentView; org: string }[] = (orgs.data ?? []).flatMap((o, i) => (lists[i]?.data ?? []).map((agent) => ({ agent, org: o.name })));
  const { rows: page, pager } = usePaged(rows);
  const [creating, setCreating] = useState(false);
  return (
    <div>
      <PageHeader title="Agents">
        {orgs.data?.length && !creating ? <Button kind="primary" onClick={() => setCreating(true)}>New agent</Button> : null}
      </PageHeader>
      <p className="muted">The agents of your organizations. Create one here, or import one with <code>cairn agent import &lt;dir&gt; --agent &lt;slug&gt;</code>.</p>
      {creating && orgs.data ? <CreateAgentForm orgs={orgs.data} others={rows.map((r) => r.agent)} onCancel={() => setCreating(false)} /> : null}
      {orgs.isPending || lists.some((l) => l.isPending) ? <Loading what="Loading agents" />
        : orgs.isError ? <ErrorMessage error={orgs.error} retry={() => void orgs.refetch()} />
        : failed ? <ErrorMessage error={failed.error} retry={() => void failed.refetch()} />
        : rows.length === 0 ? <p className="empty">No agents yet. Create one with New agent, or import one with <code>cairn agent import</code>.</p>
        : (
          <>
            <div className="table-wrap">
              <table className="stack-table">
                <thead><tr><th scope="col">Agent</th><th scope="col">Description</th><th scope="col">Organization</th><th scope="col">Created</th></tr></thead>
                <tbody>
                  {page.map(({ agent, org }) => (
                    <tr key={agent.id}>
                      <td data-label="Agent"><div><Link href={`/agents/${encodeURIComponent(agentRefOf(agent, rows.map((r) => r.agent)))}`}>{agent.name}</Link> <span className="muted small">{agent.slug}</span></div></td>
                      <td data-label="Description">{agent.description || <span className="muted">none</span>}</td>
                      <td data-label="Organization">{org}</td>
                      <td data-label="Created"><RelativeTime at={agent.createdAt} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {pager}
          </>
        )}
    </div>
  );
}
