/**
 * One file of an environment's draft at a time, for the design agent (Maintainer role at least): the draft's paths,
 * one file's text with its digest, and a write or delete that holds only if the file is still what the writer last
 * read (a compare-and-set on its digest, under the agent's lock). Several design chats on one draft thus see each
 * other's saved changes: a write over a file changed since it was read is refused with the file as it is now.
 *
 * Source: issue "The design agent" § A conversation per agent environment's draft; docs/decisions.md D7 § Agents
 * and environments (the draft is a branch; saves are commits).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { loadAgent } from './agent-access.ts';
import { withAgentLock } from './agent-lock.ts';
import { commitDraft, loadEnvironment, readDraftFiles } from './drafts.ts';
import type { AgentFile } from './documents.ts';
import type { AgentCaller, AgentDeps } from './hosting-model.ts';

/** Where a draft file is: the agent (id or slug), the environment and the path. */
export interface DraftFileRef {
  agentId: string;
  envName: string;
  path: string;
}

/** A draft file as read: its text and the SHA-256 hex digest of it (what a later write names as read). */
export interface DraftFileText {
  path: string;
  text: string;
  digest: string;
}

/** The digest of a file's text (SHA-256, hex). */
const digestOf = (deps: Pick<AgentDeps, 'ids'>, text: string) => deps.ids.sha256Hex(text);

/**
 * The files of the environment's draft.
 * @throws PlatformError `agent_not_found`/`environment_not_found` (404), `agent_role_required` (403)
 */
export async function readDraft(
  deps: AgentDeps,
  caller: AgentCaller,
  ref: { agentId: string; envName: string },
): Promise<AgentFile[]> {
  const agent = await loadAgent(deps, caller, ref.agentId, { role: 'maintainer' });
  const env = await loadEnvironment(deps, agent, ref.envName);
  return readDraftFiles(deps, agent._id, env.name, true);
}

/**
 * The paths of the environment's draft, sorted, with their sizes (characters).
 * @throws as {@link readDraft}
 */
export async function listDraftFiles(
  deps: AgentDeps,
  caller: AgentCaller,
  ref: { agentId: string; envName: string },
): Promise<{ path: string; size: number }[]> {
  const files = await readDraft(deps, caller, ref);
  return files.map((f) => ({ path: f.path, size: f.text.length })).sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * One file of the environment's draft, or undefined when the draft has none at `path`.
 * @throws as {@link readDraft}
 */
export async function readDraftFile(
  deps: AgentDeps,
  caller: AgentCaller,
  ref: DraftFileRef,
): Promise<DraftFileText | undefined> {
  const file = (await readDraft(deps, caller, ref)).find((f) => f.path === ref.path);
  return file ? { path: file.path, text: file.text, digest: await digestOf(deps, file.text) } : undefined;
}

/** The refusal of a write over a file changed since it was read: PlatformError `file_changed` (409) with the file. */
export class DraftFileChangedError extends PlatformError {
  /** The file as it is now (undefined: it is gone). */
  readonly current: DraftFileText | undefined;

  // Fields written out, not as parameter properties: Node runs the operator command with type stripping only.
  constructor(path: string, current: DraftFileText | undefined) {
    super(
      'file_changed',
      `${path} changed in the draft since you read it (someone saved it meanwhile); read it again and redo your ` +
        'change on what it holds now.',
      { status: 409 },
    );
    this.current = current;
  }
}

/** A write or delete of one draft file, and what the writer last read of it. */
export interface DraftFileChange extends DraftFileRef {
  /** The new text; null deletes the file. */
  text: string | null;
  /** The digest of the file as the writer last read it; null: read as absent; undefined: never read. */
  readDigest: string | null | undefined;
  /** The commit message. */
  message: string;
}

/**
 * Writes (or deletes) one file of the environment's draft as a commit, if the file is still what the writer last
 * read: a file that exists must have been read at its current digest; a file read as absent must still be absent;
 * a file never read may only be created.
 * @returns the file after the change (undefined after a delete) and the draft's new commit
 * @throws DraftFileChangedError `file_changed` (409) with the file as it is now; PlatformError `not_found` (404) for
 *   a delete of a file the draft does not hold; `invalid_argument` (400) for a bad path; as {@link readDraft};
 *   `agent_busy` (409)
 */
export async function changeDraftFile(
  deps: AgentDeps,
  caller: AgentCaller,
  change: DraftFileChange,
): Promise<{ file: DraftFileText | undefined; commitId: string }> {
  const agent = await loadAgent(deps, caller, change.agentId, { role: 'maintainer' });
  return withAgentLock(deps, agent._id, async () => {
    const env = await loadEnvironment(deps, agent, change.envName);
    const found = (await readDraftFiles(deps, agent._id, env.name, true)).find((f) => f.path === change.path);
    const current = found ? { ...found, digest: await digestOf(deps, found.text) } : undefined;
    const unchanged = current
      ? change.readDigest === current.digest
      : change.readDigest !== undefined
      ? change.readDigest === null
      : true;
    if (!unchanged) throw new DraftFileChangedError(change.path, current);
    if (change.text === null && !current) {
      throw new PlatformError('not_found', `The draft holds no ${change.path}; list the files to see what it holds.`, {
        status: 404,
      });
    }
    const files = change.text === null ? [] : [{ path: change.path, text: change.text }];
    const deletes = change.text === null ? [change.path] : [];
    const saved = await commitDraft(deps, caller, {
      agent,
      envName: env.name,
      change: { files, deletes, replace: false, message: change.message },
    });
    const file = change.text === null
      ? undefined
      : { path: change.path, text: change.text, digest: await digestOf(deps, change.text) };
    return { file, commitId: saved.draftCommit };
  });
}
