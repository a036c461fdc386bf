/**
 * {@link GitRepo} on isomorphic-git, persisted through the {@link ObjectStore}: each repository is one
 * tar archive of its (bare) git directory at `<keyPrefix>git/<repoKey>.tar`. Every call restores the
 * archive into a fresh scratch directory and removes it afterwards; a commit writes blobs and trees
 * directly (no working tree, no index) and puts the new archive.
 *
 * Source: core/ports/git-repo.ts; docs/architecture.md § Ports and adapters (GitRepo).
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import type { GitChange, GitCommitInfo, GitRepo } from '../../ports/git-repo.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { packGitDir, sameArchive, unpackGitDir, withScratchDir } from './git-archive.ts';
import { applyChange, type GitDirHandle, readFlatTree, resolveCommit, writeFlatTree } from './git-tree.ts';

/** Dependencies of {@link createObjectStoreGitRepo}. */
export interface ObjectStoreGitRepoDeps {
  /** Where archives live. */
  objectStore: ObjectStore;
  /** Local directory for per-call scratch copies (created when missing); left empty after each call. */
  scratchDir: string;
  /** Prefix of archive keys, e.g. `semantic/`; default ''. */
  keyPrefix?: string;
}

/** The branch every repository commits on. */
export const DEFAULT_BRANCH = 'main';

const REPO_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** A restored repository for the duration of one call. */
interface Restored extends GitDirHandle {
  /** The archive it was restored from; null for a repository that does not exist yet. */
  archive: Uint8Array | null;
  /** Staging path for tar files, outside the git directory. */
  tarPath: string;
}

/**
 * A GitRepo over `deps.objectStore`.
 *
 * Commits for one `repoKey` are serialised within this process. Across processes the archive is
 * last-writer-wins, so one process should commit per repository (the API); a commit re-reads the
 * archive just before writing and fails with PlatformError `conflict` (409) when another process
 * changed it meanwhile (a narrow race between that check and the write remains).
 *
 * Errors: `invalid_key` (repoKey not `/`-separated segments of `[A-Za-z0-9._-]`, starting alphanumeric),
 * `invalid_path` (bad file path, or a path both file and folder), `not_found` (readFiles with an unknown ref),
 * `conflict` (see above).
 */
export function createObjectStoreGitRepo(deps: ObjectStoreGitRepoDeps): GitRepo {
  const prefix = deps.keyPrefix ?? '';
  const archiveKey = (repoKey: string) => `${prefix}git/${checkRepoKey(repoKey)}.tar`;

  const restore = <R>(repoKey: string, fn: (repo: Restored) => Promise<R>): Promise<R> =>
    withScratchDir(deps.scratchDir, repoKey.replace(/\//g, '__'), async (dir) => {
      const archive = await deps.objectStore.get(archiveKey(repoKey));
      const repo: Restored = { gitdir: join(dir, 'repo.git'), tarPath: join(dir, 'repo.tar'), cache: {}, archive };
      if (archive === null) await git.init({ fs, dir: repo.gitdir, bare: true, defaultBranch: DEFAULT_BRANCH });
      else await unpackGitDir(archive, repo.gitdir, repo.tarPath);
      return fn(repo);
    });

  const serialised = keyedSerialiser();

  return {
    commit: async (repoKey, change) => {
      const key = archiveKey(repoKey);
      return serialised(
        repoKey,
        () => restore(repoKey, (repo) => commitIn(repo, { key, change, objectStore: deps.objectStore })),
      );
    },
    readFiles: async (repoKey, ref) => {
      archiveKey(repoKey);
      return restore(repoKey, (repo) => readFilesIn(repo, ref));
    },
    log: async (repoKey, limit) => {
      archiveKey(repoKey);
      return restore(repoKey, (repo) => logIn(repo, limit));
    },
  };
}

/** A function that runs tasks one after another per key (tasks of different keys run concurrently). */
function keyedSerialiser(): <R>(key: string, task: () => Promise<R>) => Promise<R> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const next = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return next;
  };
}

function checkRepoKey(repoKey: string): string {
  if (repoKey.length > 200 || !REPO_KEY.test(repoKey)) {
    throw new PlatformError('invalid_key', `The repository key ${JSON.stringify(repoKey)} is not valid.`, {
      status: 400,
    });
  }
  return repoKey;
}

async function commitIn(
  repo: Restored,
  job: { key: string; change: GitChange; objectStore: ObjectStore },
): Promise<{ commitId: string; changed: boolean }> {
  const branch = job.change.branch ?? DEFAULT_BRANCH;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(branch) || branch.includes('..') || branch.endsWith('.lock')) {
    throw new PlatformError(
      'invalid_argument',
      `The branch name ${JSON.stringify(branch)} is not valid: use letters, digits, ".", "_" and "-".`,
      { status: 400 },
    );
  }
  const head = await resolveCommit(repo, `refs/heads/${branch}`);
  const headTree = head === undefined
    ? undefined
    : (await git.readCommit({ fs, gitdir: repo.gitdir, cache: repo.cache, oid: head })).commit.tree;
  const files = headTree === undefined ? new Map() : await readFlatTree(repo, headTree);
  await applyChange(repo, files, job.change);
  const tree = await writeFlatTree(repo, files);
  if (head !== undefined && tree === headTree) return { commitId: head, changed: false };
  const commitId = await git.commit({
    fs,
    gitdir: repo.gitdir,
    cache: repo.cache,
    message: job.change.message,
    author: { name: job.change.author.name, email: job.change.author.email },
    ref: `refs/heads/${branch}`,
    parent: head === undefined ? [] : [head],
    tree,
  });
  const packed = await packGitDir(repo.gitdir, repo.tarPath);
  if (!sameArchive(repo.archive, await job.objectStore.get(job.key))) {
    throw new PlatformError('conflict', `Another process committed to ${job.key} meanwhile; retry the change.`, {
      status: 409,
    });
  }
  await job.objectStore.put(job.key, packed, { contentType: 'application/x-tar' });
  return { commitId, changed: true };
}

async function readFilesIn(repo: Restored, ref: string | undefined): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const commitId = await resolveCommit(repo, ref ?? DEFAULT_BRANCH);
  if (commitId === undefined) {
    if (ref === undefined) return out;
    throw new PlatformError('not_found', `No commit or branch ${JSON.stringify(ref)} in this repository.`, {
      status: 404,
    });
  }
  const { commit } = await git.readCommit({ fs, gitdir: repo.gitdir, cache: repo.cache, oid: commitId });
  const files = await readFlatTree(repo, commit.tree);
  for (const [path, entry] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { blob } = await git.readBlob({ fs, gitdir: repo.gitdir, cache: repo.cache, oid: entry.oid });
    out.set(path, Uint8Array.from(blob));
  }
  return out;
}

async function logIn(repo: Restored, limit: number): Promise<GitCommitInfo[]> {
  if (limit <= 0 || (await resolveCommit(repo, DEFAULT_BRANCH)) === undefined) return [];
  const entries = await git.log({ fs, gitdir: repo.gitdir, cache: repo.cache, ref: DEFAULT_BRANCH, depth: limit });
  return entries.map(({ oid, commit }) => ({
    commitId: oid,
    message: commit.message.replace(/\n$/, ''),
    authorName: commit.author.name,
    at: new Date(commit.committer.timestamp * 1000),
  }));
}
