/**
 * Git repositories persisted through the object store (public edge of `core/adapters/git`).
 *
 * Source: core/ports/git-repo.ts.
 */
export { createObjectStoreGitRepo, DEFAULT_BRANCH, type ObjectStoreGitRepoDeps } from './object-store-git-repo.ts';
