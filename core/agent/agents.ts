/**
 * Agent use cases: create an agent in an organization (seeded from the template on its `main`
 * environment), list an organization's agents, read one agent with its environments. Every call checks
 * the caller through core/org: `agents:create` to create, at least the Reader role to read.
 *
 * Source: spec/platform-service.md (What the service does; § Authentication rule 8); docs/decisions.md D7
 * § Agents and environments.
 */
import { parse } from 'yaml';
import { loadAgent } from './agent-access.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { AgentFile } from './documents.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentDeps,
  type AgentRecord,
  type AgentRoleName,
  agentSchemaVersion,
  checkAgentSlug,
  defaultEnvironment,
  type EnvironmentRecord,
} from './hosting-model.ts';
import { withAgentLock } from './agent-lock.ts';
import { commitDraft } from './drafts.ts';
import { splitFrontMatter } from './yaml-source.ts';

/** Name and description of an agent from its AGENTS.md front matter (the slug and '' when absent or unreadable). */
export function describeAgent(files: AgentFile[], slug: string): { name: string; description: string } {
  const text = files.find((f) => f.path === 'AGENTS.md')?.text;
  const front = text === undefined ? undefined : splitFrontMatter(text);
  let data: unknown;
  try {
    data = front ? parse(front.yaml) : undefined;
  } catch {
    data = undefined;
  }
  const fields = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const name = typeof fields.name === 'string' && fields.name.trim() ? fields.name.trim().slice(0, 100) : slug;
  const description = typeof fields.description === 'string' ? fields.description.trim().slice(0, 500) : '';
  return { name, description };
}

/** The agent {@link createAgent} creates. */
export interface AgentCreation {
  /** The organization it is created in. */
  orgId: string;
  /** Its slug (unique in the organization; a bad one is refused). */
  slug: string;
  /** Its name (trimmed, at most 100 characters). Default: the template's. */
  name?: string;
}

/**
 * Creates agent `slug` in organization `orgId`, seeded from `deps.template()` as the first commit of its
 * `main` environment's draft (nothing published yet). Its name is `name` when given (trimmed, at most 100
 * characters; an import passes its AGENTS.md's name or the slug), else the template's; a publish of `main` renames
 * it after the published AGENTS.md.
 * @throws PlatformError `permission_required` (403) without `agents:create`; `not_found` (404) for an
 *   organization the caller is not in; `invalid_argument` (400) for a bad slug; `agent_exists` (409)
 */
export async function createAgent(
  deps: AgentDeps,
  caller: AgentCaller,
  { orgId, slug, name }: AgentCreation,
): Promise<AgentRecord> {
  await deps.authority.requireCreate(caller, orgId);
  checkAgentSlug(slug);
  const files = await deps.template();
  const agent: AgentRecord = {
    _id: deps.ids.newId(),
    schemaVersion: agentSchemaVersion,
    orgId,
    slug,
    ...describeAgent(files, slug),
    ...(name?.trim() ? { name: name.trim().slice(0, 100) } : {}),
    createdAt: deps.clock.now(),
    createdBy: caller.subject,
  };
  try {
    await deps.docs.collection<AgentRecord>(agentCollections.agents).insertOne(agent);
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) {
      throw new PlatformError(
        'agent_exists',
        `Organization "${orgId}" already has an agent "${slug}"; choose another slug or import into it.`,
        { status: 409 },
      );
    }
    throw error;
  }
  try {
    await withAgentLock(
      deps,
      agent._id,
      () =>
        commitDraft(deps, caller, {
          agent,
          envName: defaultEnvironment,
          change: {
            files,
            replace: true,
            message: 'Create the agent from the template',
          },
        }),
    );
  } catch (error) {
    await deps.docs.collection<AgentRecord>(agentCollections.agents).deleteOne({ _id: agent._id });
    throw error;
  }
  return agent;
}

/**
 * The agents of `orgId` the caller holds a role on, by slug.
 * @throws PlatformError `not_found` (404) for an organization the caller is not in
 */
export async function listAgents(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  orgId: string,
): Promise<AgentRecord[]> {
  const roleOf = await deps.authority.rolesIn(caller, orgId);
  const agents = await deps.docs.collection<AgentRecord>(agentCollections.agents).find({ orgId }, {
    sort: { slug: 1 },
  });
  return agents.filter((a) => roleOf(a._id) !== undefined);
}

/**
 * One agent, its environments and the caller's role on it (Reader role at least); `agentId` is the agent's id or slug
 * (core/agent/agent-access.ts).
 * @throws as {@link loadAgent}
 */
export async function getAgent(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  agentId: string,
): Promise<{ agent: AgentRecord; environments: EnvironmentRecord[]; role: AgentRoleName }> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'reader' });
  const environments = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments)
    .find({ agentId: agent._id }, { sort: { name: 1 } });
  const role = (await deps.authority.rolesIn(caller, agent.orgId))(agent._id) ?? 'reader';
  return { agent, environments, role };
}
