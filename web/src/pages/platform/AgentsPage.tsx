/**
 * Agents and environments: /agents (the agents of the member's organizations), /agents/<agent> (its
 * environments), /agents/<agent>/environments/<env>/<tab> with the tabs Overview (draft and published
 * planes, Publish / Restore / Discard / Promote as queued operations, the validator's problems, the evaluation
 * gate and last run, spend caps), Connections (incoming connections, create and edit, token regeneration,
 * copy-paste examples), Evaluations (evaluation runs, their pass rate and cases; `?run=<id>` chooses a run) and
 * Design (a chat with the design agent on the draft, its files and unpublished changes, Publish) and Skills (the
 * followed skill registries' skills, copied into the draft with one click); Design and Skills are offered to
 * Maintainers and Administrators of the agent only: both tabs are left out for a lower role (GET /api/agents/:agent
 * says the caller's role).
 *
 * Source: spec/platform-service.md (What the service does; § Incoming connection; § Incoming
 * connection authentication; § Errors); docs/decisions.md D10 (Agents and environments, Connections), D20
 * (Evaluations).
 */
import { Link } from 'wouter';
import { ErrorMessage, Loading } from '../../ui/kit.tsx';
import { AgentList } from './agents/AgentList.tsx';
import { DesignTab } from './agents/DesignTab.tsx';
import { EnvironmentList } from './agents/EnvironmentList.tsx';
import { EnvironmentOverview } from './agents/EnvironmentOverview.tsx';
import { EvaluationsTab } from './agents/EvaluationsTab.tsx';
import { useAgent, useAgentId } from './agents/queries.ts';
import { SkillsTab } from './agents/SkillsTab.tsx';
import { ConnectionsTab } from './connections/ConnectionsTab.tsx';
import './agents/agents.css';

/** The environment page's tabs: path segment and label. */
const tabs = [
  ['overview', 'Overview'], ['connections', 'Connections'], ['evaluations', 'Evaluations'], ['design', 'Design'],
  ['skills', 'Skills'],
] as const;

/** The tabs offered to Maintainers and Administrators only. */
const maintainerTabs: readonly string[] = ['design', 'skills'];

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
  // The Design and Skills tabs are offered to Maintainers and Administrators (the agent's answer says the caller's role).
  const role = detail.data?.you.role;
  const maintainer = role === 'maintainer' || role === 'administrator';
  const shown = tabs.filter(([path]) => !maintainerTabs.includes(path) || maintainer);
  const name = detail.data?.name ?? agent;
  const known = tabs.find(([path]) => path === tab);
  const tabPath = (path: string) => `/agents/${encodeURIComponent(agentRef)}/environments/${encodeURIComponent(env)}/${path}`;
  return (
    <div>
      <p className="crumbs"><Link href="/agents">Agents</Link> / <Link href={`/agents/${encodeURIComponent(agentRef)}`}>{name}</Link> / <span>{env}</span></p>
      <div className="page-header">
        <h1>{name} <span className="muted small">· environment {env}</span></h1>
      </div>
      {detail.isError ? <ErrorMessage error={detail.error} retry={() => void detail.refetch()} /> : null}
      <nav className="tabs" aria-label="Environment pages">
        {shown.map(([path, text]) => (
          <Link key={path} href={tabPath(path)} aria-current={path === tab ? 'page' : undefined} className={path === tab ? 'tab active' : 'tab'}>{text}</Link>
        ))}
      </nav>
      {!known ? <p className="empty">There is no tab “{tab}”. Choose Overview, Connections, Evaluations, Design or Skills.</p>
        : tab === 'connections' ? <ConnectionsTab agent={agent} env={env} />
        : tab === 'evaluations' ? <EvaluationsTab agent={agent} env={env} href={tabPath('evaluations')} />
        : tab === 'design' ? <DesignTab agent={agent} env={env} />
        : tab === 'skills' ? <SkillsTab agent={agent} env={env} designHref={tabPath('design')} />
        : detail.isPending ? <Loading what="Loading the agent" />
        : <EnvironmentOverview agent={agent} env={env} environments={detail.data?.environments.map((e) => e.name) ?? []} evaluationsHref={tabPath('evaluations')} />}
    </div>
  );
}
