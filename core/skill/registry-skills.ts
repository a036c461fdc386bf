/**
 * Copying a registry's skill into an agent environment's draft (Maintainer): the bundle `skills/<slug>/…` as the
 * registry's clone holds it, written in one save (a file the draft's copy has and the registry's no longer has is
 * deleted), with a commit message naming the registry and its commit. The agent owns the copy from then on: it is
 * validated and published with the rest, and a later copy replaces it.
 *
 * Source: issue "Skill registries, and collections with per-organization credentials and OAuth apps" § Skill
 * registries (agents copy a registry skill into their draft); docs/agent-format.md § skills/<slug>/SKILL.md.
 */
import { type AgentCaller, type AgentDeps, type EnvironmentView, readDraft, saveDraft } from '../agent/hosting.ts';
import type { SkillRegistries } from './registries.ts';

/** Which skill goes into which draft. */
export interface SkillCopy {
  agentId: string;
  envName: string;
  registry: string;
  skill: string;
}

/** What a copy wrote. */
export interface SkillCopied {
  environment: EnvironmentView;
  /** The registry's commit the files came from. */
  registryCommit: string;
  /** The paths written, and those deleted (the draft's older copy had them). */
  written: string[];
  deleted: string[];
}

/**
 * Copies skill `skill` of registry `registry` into the draft of `agentId`'s environment `envName`.
 * @throws PlatformError `agent_not_found`/`environment_not_found` (404), `agent_role_required` (403), the registry's
 *   `registry_not_found`/`skill_not_found` (404) and `skill_not_text` (422)
 */
export async function copyRegistrySkill(
  deps: { hosting: AgentDeps; registries: SkillRegistries },
  caller: AgentCaller,
  copy: SkillCopy,
): Promise<SkillCopied> {
  const draft = await readDraft(deps.hosting, caller, copy);
  const { commit, files } = await deps.registries.skillFiles(copy.registry, copy.skill);
  const folder = `skills/${copy.skill}/`;
  const written = files.map((f) => f.path);
  const deleted = draft.map((f) => f.path).filter((path) => path.startsWith(folder) && !written.includes(path));
  const message = `Add skill ${copy.skill} from registry ${copy.registry} at ${commit.slice(0, 12)}`;
  const environment = await saveDraft(deps.hosting, caller, {
    agentId: copy.agentId,
    envName: copy.envName,
    change: { files, replace: false, ...(deleted.length > 0 ? { deletes: deleted } : {}), message },
  });
  return { environment, registryCommit: commit, written, deleted };
}
