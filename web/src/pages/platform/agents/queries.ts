/**
 * Server state of the Agents and environments pages: query keys and readers (organizations, agents,
 * an agent, an environment, a queued operation, spend caps); evaluation runs are read in ./evaluation-queries.ts.
 *
 * Source: spec/platform-service.md (What the service does); docs/decisions.md D10 (Agents and environments).
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import type { AgentDetail, AgentListAnswer, EnvironmentDetail, OperationAnswer } from '../../../../../core/agent/api-views.ts';
import type { OrganizationListAnswer } from '../../../../../core/org/api-views.ts';
import type { SpendCapsAnswer } from '../../../../../core/session/spend-views.ts';
import { api } from '../../../api/client.ts';

/** `/api/agents/<agent>/environments/<env><rest>`, each segment encoded. */
export function environmentPath(agent: string, env: string, rest = ''): string {
  return `/api/agents/${encodeURIComponent(agent)}/environments/${encodeURIComponent(env)}${rest}`;
}

/** Query keys: everything of one agent under `['agent', agent]`, so invalidating it refreshes all. */
export const agentKeys = {
  orgs: ['orgs'] as const,
  agents: (org: string) => ['orgs', org, 'agents'] as const,
  agent: (agent: string) => ['agent', agent] as const,
  environment: (agent: string, env: string) => ['agent', agent, 'env', env] as const,
  operation: (agent: string, id: string) => ['agent', agent, 'operation', id] as const,
  spendCaps: (agent: string, env: string, workflow: string) => ['agent', agent, 'env', env, 'spend', workflow] as const,
  connections: (agent: string, env: string) => ['agent', agent, 'env', env, 'connections'] as const,
  evaluations: (agent: string, env: string) => ['agent', agent, 'env', env, 'evaluations'] as const,
  evaluation: (agent: string, env: string, run: string) => ['agent', agent, 'env', env, 'evaluations', run] as const,
};

/** GET /api/orgs. */
export function useOrganizations() {
  return useQuery({ queryKey: agentKeys.orgs, queryFn: () => api<OrganizationListAnswer>('/api/orgs').then((r) => r.organizations) });
}

/** GET /api/orgs/:org/agents for each of `orgIds`. */
export function useAgentsOf(orgIds: string[]) {
  return useQueries({
    queries: orgIds.map((org) => ({ queryKey: agentKeys.agents(org), queryFn: () => api<AgentListAnswer>(`/api/orgs/${encodeURIComponent(org)}/agents`).then((r) => r.agents) })),
  });
}

/** GET /api/agents/:agent (the agent with its environments). */
export function useAgent(agent: string) {
  return useQuery({ queryKey: agentKeys.agent(agent), queryFn: () => api<AgentDetail>(`/api/agents/${encodeURIComponent(agent)}`) });
}

/** GET /api/agents/:agent/environments/:env (planes, builds, published workflows). */
export function useEnvironment(agent: string, env: string) {
  return useQuery({ queryKey: agentKeys.environment(agent, env), queryFn: () => api<EnvironmentDetail>(environmentPath(agent, env)) });
}

/** How often a queued or running operation is asked about, in ms. */
export const operationPollMs = 1000;

/** GET /api/agents/:agent/operations/:id, asked again every second until it ends. */
export function useOperation(agent: string, id: string | null) {
  return useQuery({
    queryKey: agentKeys.operation(agent, id ?? ''),
    queryFn: () => api<OperationAnswer>(`/api/agents/${encodeURIComponent(agent)}/operations/${encodeURIComponent(id!)}`).then((r) => r.operation),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data && (query.state.data.status === 'succeeded' || query.state.data.status === 'failed') ? false : operationPollMs),
  });
}

/** GET …/workflows/:workflow/spend-caps. */
export function useSpendCaps(agent: string, env: string, workflow: string) {
  return useQuery({
    queryKey: agentKeys.spendCaps(agent, env, workflow),
    queryFn: () => api<SpendCapsAnswer>(environmentPath(agent, env, `/workflows/${encodeURIComponent(workflow)}/spend-caps`)).then((r) => r.caps),
  });
}

/**
 * The id of the agent `ref` names in the URL (its id, or its slug when only one of the member's
 * organizations has an agent of that slug), from the agents lists: the agent routes take ids.
 * `error` says what was wrong (no such agent; a slug in several organizations: use the id).
 */
export function useAgentId(ref: string): { id?: string; pending: boolean; error?: unknown; retry: () => void } {
  const orgs = useOrganizations();
  const lists = useAgentsOf(orgs.data?.map((o) => o.id) ?? []);
  const retry = () => { void orgs.refetch(); lists.forEach((l) => void l.refetch()); };
  if (orgs.isPending || lists.some((l) => l.isPending)) return { pending: true, retry };
  if (orgs.isError) return { pending: false, error: orgs.error, retry };
  const failed = lists.find((l) => l.isError);
  if (failed) return { pending: false, error: failed.error, retry };
  const agents = lists.flatMap((l) => l.data ?? []);
  const byId = agents.find((a) => a.id === ref);
  if (byId) return { id: byId.id, pending: false, retry };
  const bySlug = agents.filter((a) => a.slug === ref);
  if (bySlug.length === 1) return { id: bySlug[0]!.id, pending: false, retry };
  const message = bySlug.length > 1
    ? `Agent "${ref}" exists in several of your organizations; open it from the Agents list (its address then names its id).`
    : `No agent "${ref}" in your organizations. Open the Agents list to see the agents you can reach.`;
  return { pending: false, error: new Error(message), retry };
}

/** The URL segment for an agent: its slug when no other listed agent shares it, else its id. */
export function agentRefOf(agent: { id: string; slug: string }, all: { slug: string }[]): string {
  return all.filter((a) => a.slug === agent.slug).length > 1 ? agent.id : agent.slug;
}
