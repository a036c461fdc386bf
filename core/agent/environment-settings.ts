/**
 * An environment's settings: the evaluation gate (off by default). With it on, a publish runs the draft's cases
 * first and is refused when any fails, and a promotion into the environment needs a passing run of the build
 * promoted (core/agent/publishing.ts). Maintainer role at least; restores are not gated.
 *
 * Source: issue "Evaluations" § Gate; docs/decisions.md D20 § Gate.
 */
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import { type EnvironmentView, environmentView, loadEnvironment } from './drafts.ts';
import { type AgentCaller, agentCollections, type AgentDeps, type EnvironmentRecord } from './hosting-model.ts';

/** The settings an environment takes (each optional: only those given change). */
export interface EnvironmentSettings {
  /** The evaluation gate: on (`true`) or off. */
  evaluationGate?: boolean;
}

/** Which environment {@link setEnvironmentSettings} changes, and how. */
export interface EnvironmentSettingsChange {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment's name. */
  envName: string;
  settings: EnvironmentSettings;
}

/**
 * Changes an environment's settings (Maintainer role at least), under the agent's lock.
 * @returns the environment after the change
 * @throws PlatformError `agent_not_found`/`environment_not_found` (404), `agent_role_required` (403),
 *   `agent_busy` (409)
 */
export async function setEnvironmentSettings(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, settings }: EnvironmentSettingsChange,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, envName);
    if (settings.evaluationGate === undefined) return environmentView(env);
    const evaluationGate = settings.evaluationGate;
    await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).updateOne({ _id: env._id }, {
      $set: { evaluationGate },
    });
    return environmentView({ ...env, evaluationGate });
  });
}
