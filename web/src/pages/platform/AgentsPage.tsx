/**
 * Agents and environments: /agents (the agents of the member's organizations), /agents/<agent> (its
 * environments), /agents/<agent>/environments/<env>/<tab> with the tabs Overview (draft and published
 * planes, Publish / Restore / Discard / Promote as queued operations, the validator's problems, spend caps)
 * and Connections (incoming connections, create and edit, token regeneration, copy-paste examples).
 *
 * Source: spec/platform-service.md (What the service does; § Incoming connection; § Incoming
 * connection authentication; § Errors); docs/decisions.md D10 (Agents and environments, Connections).
 */
import { Link } from 'wouter';
import { ErrorMessage, Loading } from '../../ui/kit.tsx';
import { AgentList } from './agents/AgentList.tsx';
import { EnvironmentList } from './agents/EnvironmentList.tsx';
import { EnvironmentOverview } from './agents/EnvironmentOverview.tsx';
import { useAgent, useAgentId } from './agents/queries.ts';
import { ConnectionsTab } from './connections/ConnectionsTab.tsx';
import './agents/agents.css';

/** The environment page's tabs: path segment and label. */
const tabs = [['overview', 'Overview'], ['connections', 'Connections']] as const;

/** Routes /agents, /agents/:agent and /agents/:agent/environments/:env/:tab (default tab: overview). */
export function AgentsPage({ agent, env, tab }: { agent?: string; env?: string; tab?: string }) {
  return (
    <div className="agents-page">
      {!agent ? <AgentList /> : <AgentPages agentRef={agent} env={env} tab={tab} />}
    </div>
  );
}

/** Resolves the URL's agent (slug or id) to its id, then shows its environments or one environment. */
function AgentPages({ agentRef, env, tab }: { agentRef: string; env?: string; tab?: string }) {
  const resolved = useAgentId(agentRef);
  if (resolved.pending) return <Loading what="Loading the agent" />;
  if (!resolved.id) {
    return (
      <div>
        <p className="crumbs"><Link href="/agents">Agents</Link> / <span>{agentRef}</span></p>
        <ErrorMessage error={resolved.error} retry={resolved.retry} title="Agent not found" />
      </div>
    );
  }
  return env ? <EnvironmentLayout agentRef={agentRef} agent={resolved.id} env={env} tab={tab ?? 'overview'} /> : <EnvironmentList agentRef={agentRef} agent={resolved.id} />;
}

function EnvironmentLayout({ agentRef, agent, env, tab }: { agentRef: string; agent: string; env: string; tab: string }) {
  const detail = useAgent(agent);
  const name = detail.data?.name ?? agent;
  const known = tabs.find(([path]) => path === tab);
  return (
    <div>
      <p className="crumbs"><Link href="/agents">Agents</Link> / <Link href={`/agents/${encodeURIComponent(agentRef)}`}>{name}</Link> / <span>{env}</span></p>
      <div className="page-header">
        <h1>{name} <span className="muted small">· environment {env}</span></h1>
      </div>
      {detail.isError ? <ErrorMessage error={detail.error} retry={() => void detail.refetch()} /> : null}
      <nav className="tabs" aria-label="Environment pages">
        {tabs.map(([path, text]) => (
          <Link key={path} href={`/agents/${encodeURIComponent(agentRef)}/environments/${encodeURIComponent(env)}/${path}`} aria-current={path === tab ? 'page' : undefined} className={path === tab ? 'tab active' : 'tab'}>{text}</Link>
        ))}
      </nav>
      {!known ? <p className="empty">There is no tab “{tab}”. Choose Overview or Connections.</p>
        : tab === 'connections' ? <ConnectionsTab agent={agent} env={env} />
        : detail.isPending ? <Loading what="Loading the agent" />
        : <EnvironmentOverview agent={agent} env={env} environments={detail.data?.environments.map((e) => e.name) ?? []} />}
    </div>
  );
}
