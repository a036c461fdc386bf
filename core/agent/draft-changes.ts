/**
 * What a publish of an environment's draft would change: each file added, changed or deleted against the published
 * build (every draft file is added while nothing is published), with both texts, so a person reads the diff before
 * publishing a draft the design agent wrote.
 *
 * Source: issue "The design agent" § A conversation per agent environment's draft (a person publishes, and sees the
 * diff first), § Front doors (a diff of unpublished changes).
 */
import { loadAgent } from './agent-access.ts';
import { loadEnvironment, readDraftFiles } from './drafts.ts';
import type { AgentCaller, AgentDeps } from './hosting-model.ts';
import { readBuild } from './builds.ts';

/** One file a publish would change. */
export interface DraftChangedFile {
  path: string;
  status: 'added' | 'changed' | 'deleted';
  /** The published text (absent for an added file). */
  published?: string;
  /** The draft's text (absent for a deleted file). */
  draft?: string;
}

/** The unpublished changes of an environment's draft. */
export interface DraftChanges {
  /** The published build compared against; null while nothing is published. */
  publishedBuildId: string | null;
  /** The draft's head commit. */
  draftCommit: string;
  /** Changed files, sorted by path; empty when the draft is what is published. */
  files: DraftChangedFile[];
}

/**
 * The draft's changes against the published build (Maintainer role at least, as the draft's reads).
 * @throws PlatformError `agent_not_found`/`environment_not_found` (404), `agent_role_required` (403),
 *   `build_missing` (500)
 */
export async function draftChanges(
  deps: AgentDeps,
  caller: AgentCaller,
  ref: { agentId: string; envName: string },
): Promise<DraftChanges> {
  const agent = await loadAgent(deps, caller, ref.agentId, { role: 'maintainer' });
  const env = await loadEnvironment(deps, agent, ref.envName);
  const draft = new Map((await readDraftFiles(deps, agent._id, env.name, true)).map((f) => [f.path, f.text]));
  const published = new Map(
    env.published ? (await readBuild(deps, env.published)).files.map((f) => [f.path, f.text]) : [],
  );
  const files: DraftChangedFile[] = [];
  for (const path of [...new Set([...draft.keys(), ...published.keys()])].sort()) {
    const before = published.get(path);
    const after = draft.get(path);
    if (before === after) continue;
    const status = before === undefined ? 'added' : after === undefined ? 'deleted' : 'changed';
    files.push({
      path,
      status,
      ...(before === undefined ? {} : { published: before }),
      ...(after === undefined ? {} : { draft: after }),
    });
  }
  return { publishedBuildId: env.published?.buildId ?? null, draftCommit: env.draftCommit, files };
}
