/**
 * GitRepo commits on named branches (the environments of a hosted agent): a branch's first commit starts
 * from no files, commits on one branch leave the others alone, and a bad branch name is refused.
 * Source: core/ports/git-repo.ts (GitChange.branch).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createObjectStoreGitRepo } from './index.ts';

const author = { name: 'Ada', email: 'ada@example.com' };
const text = (files: Map<string, Uint8Array>) =>
  Object.fromEntries([...files].map(([p, b]) => [p, new TextDecoder().decode(b)]));

describe('GitRepo branches', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-git-branches-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('commits on a named branch without moving the default branch, and refuses a bad branch name', async () => {
    const git = createObjectStoreGitRepo({ objectStore: createMemoryObjectStore(), scratchDir: dir });
    const main = await git.commit('agents/a1', { files: { 'AGENTS.md': 'main' }, message: 'main', author });
    const staging = await git.commit('agents/a1', {
      files: { 'NOTES.md': 'staging' },
      message: 'staging',
      author,
      branch: 'staging',
    });
    expect(staging.commitId).not.toBe(main.commitId);
    expect(text(await git.readFiles('agents/a1'))).toEqual({ 'AGENTS.md': 'main' });
    expect(text(await git.readFiles('agents/a1', 'refs/heads/staging'))).toEqual({ 'NOTES.md': 'staging' });
    const again = await git.commit('agents/a1', {
      files: { 'NOTES.md': 'more' },
      message: 'more',
      author,
      branch: 'staging',
    });
    expect(text(await git.readFiles('agents/a1', again.commitId))).toEqual({ 'NOTES.md': 'more' });
    expect(text(await git.readFiles('agents/a1', staging.commitId))).toEqual({ 'NOTES.md': 'staging' });
    await expect(git.commit('agents/a1', { files: {}, message: 'x', author, branch: '../main' })).rejects.toMatchObject(
      { code: 'invalid_argument', status: 400 },
    );
  });
});
