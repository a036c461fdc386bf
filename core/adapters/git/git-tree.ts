/**
 * Git trees as flat maps (`path → blob`) for the object-store git repository: read a commit's tree,
 * apply a change, write the nested trees back. Works on a bare git directory; no working tree.
 *
 * Source: core/ports/git-repo.ts; docs/architecture.md § Ports and adapters (GitRepo).
 */
import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { PlatformError } from '../../ports/platform-error.ts';
import type { GitChange } from '../../ports/git-repo.ts';

/** One file of a flat tree: blob id and git mode (`100644`, `100755`, `120000`). */
export interface FlatEntry {
  oid: string;
  mode: string;
}

/** Where isomorphic-git finds the repository: the bare git directory and a shared object cache. */
export interface GitDirHandle {
  gitdir: string;
  cache: object;
}

/** Every file of the tree `treeOid`, keyed by `/`-separated path (submodule entries are skipped). */
export async function readFlatTree(repo: GitDirHandle, treeOid: string): Promise<Map<string, FlatEntry>> {
  const files = new Map<string, FlatEntry>();
  const visit = async (oid: string, prefix: string): Promise<void> => {
    const { tree } = await git.readTree({ fs, gitdir: repo.gitdir, cache: repo.cache, oid });
    for (const entry of tree) {
      if (entry.type === 'tree') await visit(entry.oid, `${prefix}${entry.path}/`);
      else if (entry.type === 'blob') files.set(`${prefix}${entry.path}`, { oid: entry.oid, mode: entry.mode });
    }
  };
  await visit(treeOid, '');
  return files;
}

/**
 * Applies `change` to `files` in place: removes `deletes` (missing paths are ignored), then writes
 * each new file as a blob (strings as UTF-8) keeping an existing file's mode.
 * @throws PlatformError `invalid_path` for a path that is empty, absolute, has an empty, `.`, `..` or
 *   `.git` segment, or holds a backslash or NUL
 */
export async function applyChange(repo: GitDirHandle, files: Map<string, FlatEntry>, change: GitChange): Promise<void> {
  for (const path of change.deletes ?? []) files.delete(checkPath(path));
  for (const [path, content] of Object.entries(change.files)) {
    const blob = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const oid = await git.writeBlob({ fs, gitdir: repo.gitdir, blob });
    files.set(checkPath(path), { oid, mode: files.get(path)?.mode ?? '100644' });
  }
}

function checkPath(path: string): string {
  const bad = (reason: string) =>
    new PlatformError('invalid_path', `The repository path ${JSON.stringify(path)} is not valid: ${reason}.`, {
      status: 400,
    });
  if (path.length === 0 || path.startsWith('/')) throw bad('it is empty or absolute');
  if (path.includes('\\') || path.includes('\0')) throw bad('it holds a backslash or NUL');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw bad('it has an empty, . or .. segment');
    if (segment.toLowerCase() === '.git') throw bad('it has a .git segment');
  }
  return path;
}

/**
 * Writes the nested trees of `files` and returns the root tree id (the empty tree for no files).
 * @throws PlatformError `invalid_path` when a path is both a file and a folder (`a` and `a/b`)
 */
export async function writeFlatTree(repo: GitDirHandle, files: Map<string, FlatEntry>): Promise<string> {
  const blobs: Array<{ mode: string; path: string; oid: string; type: 'blob' | 'tree' }> = [];
  const folders = new Map<string, Map<string, FlatEntry>>();
  for (const [path, entry] of files) {
    const slash = path.indexOf('/');
    if (slash < 0) {
      blobs.push({ mode: entry.mode, path, oid: entry.oid, type: 'blob' });
      continue;
    }
    const folder = path.slice(0, slash);
    if (!folders.has(folder)) folders.set(folder, new Map());
    folders.get(folder)?.set(path.slice(slash + 1), entry);
  }
  for (const [folder, children] of folders) {
    if (blobs.some((b) => b.path === folder)) {
      throw new PlatformError(
        'invalid_path',
        `The repository path ${JSON.stringify(folder)} is both a file and a folder.`,
        {
          status: 400,
        },
      );
    }
    blobs.push({ mode: '040000', path: folder, oid: await writeFlatTree(repo, children), type: 'tree' });
  }
  return git.writeTree({ fs, gitdir: repo.gitdir, tree: blobs });
}

/**
 * The commit id `ref` names: a full or abbreviated (≥ 4 hex) commit id, a branch or a tag.
 * @returns the 40-hex id, or undefined when nothing by that name exists
 */
export async function resolveCommit(repo: GitDirHandle, ref: string): Promise<string | undefined> {
  try {
    let oid: string;
    if (/^[0-9a-f]{40}$/.test(ref)) oid = ref;
    else if (/^[0-9a-f]{4,39}$/.test(ref)) {
      oid = await git.expandOid({ fs, gitdir: repo.gitdir, cache: repo.cache, oid: ref });
    } else oid = await git.resolveRef({ fs, gitdir: repo.gitdir, ref });
    await git.readCommit({ fs, gitdir: repo.gitdir, cache: repo.cache, oid });
    return oid;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** True for isomorphic-git's "not found" family of errors (missing ref or object, ambiguous short id excluded). */
function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NotFoundError' || code === 'ObjectTypeError';
}
