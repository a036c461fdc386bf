/**
 * Git repository port: one repository per key (e.g. a semantic project), persisted through the
 * object store. Implemented with isomorphic-git; callers never touch a working directory.
 *
 * Source: docs/architecture.md § Ports and adapters (GitRepo); docs/decisions.md D2 (model sources as a git repository
 * per project).
 */
export interface GitRepo {
  /**
   * Commits a change on `change.branch` (default: the default branch), creating the repository on first
   * commit and the branch on its first commit (a new branch starts from no files).
   * `files` maps repository paths to new contents; `deletes` lists paths to remove.
   * Commits for one `repoKey` are serialised.
   * @returns the new commit id (40 hex), or the current head when nothing changed
   */
  commit(repoKey: string, change: GitChange): Promise<{ commitId: string; changed: boolean }>;
  /** Every file at `ref` (default: head of the default branch); empty map for a repository with no commit. */
  readFiles(repoKey: string, ref?: string): Promise<Map<string, Uint8Array>>;
  /** The newest `limit` commits, newest first. */
  log(repoKey: string, limit: number): Promise<GitCommitInfo[]>;
}

/** A change to commit. */
export interface GitChange {
  files: Record<string, Uint8Array | string>;
  deletes?: string[];
  message: string;
  author: { name: string; email: string };
  /** Branch to commit on (a plain name such as `main` or `staging`); default: the default branch. */
  branch?: string;
}

/** One commit of {@link GitRepo.log}. */
export interface GitCommitInfo {
  commitId: string;
  message: string;
  authorName: string;
  /** Commit time. */
  at: Date;
}
