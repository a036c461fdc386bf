/**
 * The draft back to a build: restore (a published build's files into an environment's draft) and discard (the
 * draft back to the published commit), each a new commit under the agent's lock. Maintainer role at least.
 *
 * Source: spec/platform-service.md (What the service does; § Errors); docs/decisions.md D7 § Agents and
 * environments.
 */
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import { findBuild, readBuild, requirePublished } from './builds.ts';
import { commitDraft, type EnvironmentView, environmentView, loadEnvironment } from './drafts.ts';
import type { AgentCaller, AgentDeps } from './hosting-model.ts';

/** Which build {@link restoreEnvironment} restores into which environment. */
export interface EnvironmentRestore {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment whose draft receives the build's files. */
  envName: string;
  /** A build of this agent (any environment's). Default: the environment's published build. */
  buildId?: string;
}

/**
 * Restores a published build into an environment's draft (a new commit holding exactly its files).
 * @throws PlatformError `not_published` (409) with no build to restore; `build_not_found` (404);
 *   `agent_not_found`/`environment_not_found` (404); `agent_role_required` (403)
 */
export async function restoreEnvironment(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, buildId }: EnvironmentRestore,
): Promise<EnvironmentView> {
  return replaceDraft(deps, caller, {
    agentId,
    envName,
    pick: (agent, env) => (buildId === undefined ? requirePublished(agent, env) : findBuild(deps, agent, buildId)),
    message: (content) => `Restore build ${content.buildId} (commit ${content.commitId.slice(0, 12)})`,
  });
}

/**
 * Discards the draft's changes: the draft gets exactly the files of the published commit (a new commit).
 * @throws PlatformError `not_published` (409) when nothing is published; others as {@link restoreEnvironment}
 */
export async function discardDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  agentId: string,
  envName: string,
): Promise<EnvironmentView> {
  return replaceDraft(deps, caller, {
    agentId,
    envName,
    pick: requirePublished,
    message: (content) => `Discard draft changes (back to ${content.commitId.slice(0, 12)})`,
  });
}

type Build = Parameters<typeof readBuild>[1];
type BuildContent = Awaited<ReturnType<typeof readBuild>>;

/** Which build's files replace which environment's draft, and the commit's message. */
interface DraftReplacement {
  agentId: string;
  envName: string;
  /** The build, chosen under the agent's lock. */
  pick(
    agent: Awaited<ReturnType<typeof loadAgent>>,
    env: Awaited<ReturnType<typeof loadEnvironment>>,
  ): Build | Promise<Build>;
  message(content: BuildContent): string;
}

/** Replaces the draft with exactly a build's files, as a new commit under the agent's lock (Maintainer). */
async function replaceDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, pick, message }: DraftReplacement,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    const content = await readBuild(deps, await pick(agent, env));
    const change = { files: content.files, replace: true, message: message(content) };
    return environmentView(await commitDraft(deps, caller, { agent, envName: env.name, change }));
  });
}
