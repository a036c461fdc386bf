/**
 * The draft plane of an environment: saving files as a commit on the environment's branch (its head is
 * the draft), reading them back, and the environment's view (draft and published commits, counts).
 *
 * Source: spec/platform-service.md (What the service does: environments, each a named branch
 * with a draft plane and a published plane); docs/decisions.md D7 § Agents and environments.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import type { AgentFile } from './documents.ts';
import {
  type AgentCaller,
  agentCollections,
  type AgentCounts,
  type AgentDeps,
  agentKeys,
  type AgentRecord,
  agentSchemaVersion,
  checkEnvironmentName,
  type EnvironmentRecord,
} from './hosting-model.ts';

/** Most files in one save, and longest path. Source: spec/platform-service.md § Limits (the 20 MiB body bounds the
 * bytes). */
export const maxFilesPerSave = 2000;
const maxPathLength = 300;
const pathPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/;

/** Input of {@link saveDraft}. */
export interface DraftChange {
  files: AgentFile[];
  /** When true the files replace every file of the draft; otherwise they are merged in. */
  replace: boolean;
  /** Paths to delete (merge mode). */
  deletes?: string[];
  message?: string;
}

/** An environment as the API shows it. */
export interface EnvironmentView {
  agentId: string;
  name: string;
  draft: { commitId: string; savedAt: Date };
  published: { buildId: string; commitId: string; counts: AgentCounts; publishedAt: Date; publishedBy: string } | null;
  /** Whether the evaluation gate is on (default off). */
  evaluationGate: boolean;
}

/** The view of an environment record. */
export function environmentView(env: EnvironmentRecord): EnvironmentView {
  const p = env.published;
  return {
    agentId: env.agentId,
    name: env.name,
    draft: { commitId: env.draftCommit, savedAt: env.draftSavedAt },
    published: p
      ? {
        buildId: p.buildId,
        commitId: p.commitId,
        counts: p.counts,
        publishedAt: p.publishedAt,
        publishedBy: p.publishedBy,
      }
      : null,
    evaluationGate: env.evaluationGate === true,
  };
}

/**
 * The environment `name` of `agent`.
 * @throws PlatformError `environment_not_found` (404) naming the agent's environments
 */
export async function loadEnvironment(
  deps: Pick<AgentDeps, 'docs'>,
  agent: Pick<AgentRecord, '_id' | 'slug'>,
  name: string,
): Promise<EnvironmentRecord> {
  const envs = deps.docs.collection<EnvironmentRecord>(agentCollections.environments);
  const env = await envs.findOne({ _id: `${agent._id}:${checkEnvironmentName(name)}` });
  if (env) return env;
  const names = (await envs.find({ agentId: agent._id }, { sort: { name: 1 } })).map((e) => e.name);
  throw new PlatformError(
    'environment_not_found',
    `Agent "${agent.slug}" has no environment "${name}"; it has: ${names.join(', ') || '(none)'}.`,
    { status: 404 },
  );
}

function checkFiles(files: AgentFile[], deletes: string[]): void {
  if (files.length > maxFilesPerSave) {
    throw new PlatformError(
      'invalid_argument',
      `A save holds at most ${maxFilesPerSave} files; this one has ${files.length}.`,
      { status: 400 },
    );
  }
  const seen = new Set<string>();
  for (const path of [...files.map((f) => f.path), ...deletes]) {
    if (
      path.length > maxPathLength || !pathPattern.test(path) ||
      path.split('/').some((s) => s === '.' || s === '..' || s === '.git')
    ) {
      throw new PlatformError(
        'invalid_argument',
        `File path ${JSON.stringify(path.slice(0, 100))} ` +
          `is not valid: use a relative path of letters, digits, "_", "-" and ` +
          `"." segments joined by "/" (at most ${maxPathLength} characters).`,
        { status: 400 },
      );
    }
  }
  for (const { path } of files) {
    if (seen.has(path)) {
      throw new PlatformError('invalid_argument', `File "${path}" appears twice in this save; send each path once.`, {
        status: 400,
      });
    }
    seen.add(path);
  }
}

/** The files of the environment's draft (empty for an environment not created yet). */
export async function readDraftFiles(
  deps: Pick<AgentDeps, 'git'>,
  agentId: string,
  env: string,
  exists: boolean,
): Promise<AgentFile[]> {
  if (!exists) return [];
  return decodeFiles(await deps.git.readFiles(agentKeys.repo(agentId), `refs/heads/${env}`));
}

/** Files of a git tree as UTF-8 text. */
export function decodeFiles(files: Map<string, Uint8Array>): AgentFile[] {
  const decoder = new TextDecoder();
  return [...files].map(([path, bytes]) => ({ path, text: decoder.decode(bytes) }));
}

/** Where {@link commitDraft} commits, and what. */
export interface DraftCommit {
  /** The agent (its lock held by the caller). */
  agent: AgentRecord;
  /** The environment's name (created, unpublished, when missing). */
  envName: string;
  /** The files to write or remove. */
  change: DraftChange;
}

/**
 * Commits `change` on the environment's branch and records the new draft head (creating the environment,
 * unpublished, when it does not exist). The caller holds the agent's lock.
 */
export async function commitDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  { agent, envName, change }: DraftCommit,
): Promise<EnvironmentRecord> {
  checkEnvironmentName(envName);
  const deletes = change.deletes ?? [];
  checkFiles(change.files, deletes);
  const envs = deps.docs.collection<EnvironmentRecord>(agentCollections.environments);
  const _id = `${agent._id}:${envName}`;
  const existing = await envs.findOne({ _id });
  const keep = new Set(change.files.map((f) => f.path));
  const removed = change.replace
    ? (await readDraftFiles(deps, agent._id, envName, existing !== null)).map((f) => f.path).filter((p) => !keep.has(p))
    : deletes.filter((p) => !keep.has(p));
  const { commitId } = await deps.git.commit(agentKeys.repo(agent._id), {
    branch: envName,
    files: Object.fromEntries(change.files.map((f) => [f.path, f.text])),
    deletes: removed,
    message: change.message?.trim() || `Save ${change.files.length} file(s) to ${envName}`,
    author: { name: caller.name ?? caller.email, email: caller.email },
  });
  const now = deps.clock.now();
  if (existing) {
    await envs.updateOne({ _id }, { $set: { draftCommit: commitId, draftSavedAt: now } });
    return { ...existing, draftCommit: commitId, draftSavedAt: now };
  }
  const created: EnvironmentRecord = {
    _id,
    schemaVersion: agentSchemaVersion,
    agentId: agent._id,
    orgId: agent.orgId,
    name: envName,
    draftCommit: commitId,
    draftSavedAt: now,
    published: null,
    createdAt: now,
  };
  await envs.insertOne(created);
  return created;
}

/**
 * The environment `name` of agent `agentId` (Reader role at least).
 * @throws PlatformError `agent_not_found` (404), `agent_role_required` (403), `environment_not_found` (404)
 */
export async function readEnvironment(
  deps: Pick<AgentDeps, 'docs' | 'authority'>,
  caller: AgentCaller,
  agentId: string,
  name: string,
): Promise<EnvironmentView> {
  return environmentView(await loadEnvironment(deps, await loadAgent(deps, caller, agentId, { role: 'reader' }), name));
}

/** Where {@link saveDraft} saves, and what. */
export interface DraftSave {
  /** The agent's id or slug. */
  agentId: string;
  /** The environment's name (created by its first save). */
  envName: string;
  /** The files to write or remove. */
  change: DraftChange;
}

/**
 * Saves files to an environment's draft: one commit on its branch whose author is the signed-in member
 * (Maintainer role at least). An environment that does not exist yet is created by its first save.
 * Runs in the request (publish, restore, discard and promote are the queued environment operations).
 * @throws PlatformError `agent_not_found` (404), `agent_role_required` (403), `invalid_argument` (400) naming
 *   a bad path or environment name, `agent_busy` (409)
 */
export async function saveDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  { agentId, envName, change }: DraftSave,
): Promise<EnvironmentView> {
  const agent = await loadAgent(deps, caller, agentId, { role: 'maintainer' });
  return environmentView(
    await withAgentLock(deps, agent._id, () => commitDraft(deps, caller, { agent, envName, change })),
  );
}
