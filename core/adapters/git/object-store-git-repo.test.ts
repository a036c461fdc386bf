import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitChange, GitRepo } from '../../ports/git-repo.ts';
import { isPlatformError } from '../../ports/platform-error.ts';
import { createMemoryObjectStore, type MemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createObjectStoreGitRepo } from './object-store-git-repo.ts';

const author = { name: 'Ada', email: 'ada@example.com' };
const change = (files: GitChange['files'], message: string, deletes?: string[]): GitChange => ({
  files,
  deletes,
  message,
  author,
});
const texts = (files: Map<string, Uint8Array>) =>
  Object.fromEntries([...files].map(([path, bytes]) => [path, new TextDecoder().decode(bytes)]));
const codeOf = (promise: Promise<unknown>) =>
  promise.then(() => 'ok', (e: unknown) => (isPlatformError(e) ? e.code : e));

describe('createObjectStoreGitRepo', () => {
  let scratchDir: string;
  let objects: MemoryObjectStore;
  let repo: GitRepo;

  beforeEach(async () => {
    scratchDir = await mkdtemp(join(tmpdir(), 'cairn-git-'));
    objects = createMemoryObjectStore();
    repo = createObjectStoreGitRepo({ objectStore: objects, scratchDir, keyPrefix: 'semantic/' });
  });
  afterEach(async () => {
    expect(await readdir(scratchDir)).toEqual([]);
    await rm(scratchDir, { recursive: true, force: true });
  });

  it('answers an empty map and an empty log for a repository that does not exist', async () => {
    expect(await repo.readFiles('p1')).toEqual(new Map());
    expect(await repo.log('p1', 10)).toEqual([]);
    expect(await objects.list('')).toEqual([]);
  });

  it('creates the repository on the first commit as one archive in the object store', async () => {
    const first = await repo.commit('p1', change({ 'model.yaml': 'name: m\n', 'datasets/a.yaml': 'a: 1\n' }, 'first'));
    expect(first.changed).toBe(true);
    expect(first.commitId).toMatch(/^[0-9a-f]{40}$/);
    expect(await objects.list('')).toEqual(['semantic/git/p1.tar']);
    expect(await readdir(scratchDir)).toEqual([]);
    expect(texts(await repo.readFiles('p1'))).toEqual({ 'datasets/a.yaml': 'a: 1\n', 'model.yaml': 'name: m\n' });
  });

  it('changes and deletes files, reads any older commit, and logs newest first', async () => {
    const first = await repo.commit(
      'p1',
      change({ 'a.txt': 'one', 'dir/b.txt': 'bee', 'dir/sub/c.txt': 'sea' }, 'first'),
    );
    const second = await repo.commit(
      'p1',
      change({ 'a.txt': 'two', 'new.txt': 'new' }, 'second', ['dir/b.txt', 'dir/sub/c.txt', 'absent']),
    );
    expect(second).toEqual({ commitId: expect.stringMatching(/^[0-9a-f]{40}$/), changed: true });
    expect(second.commitId).not.toBe(first.commitId);
    expect(texts(await repo.readFiles('p1'))).toEqual({ 'a.txt': 'two', 'new.txt': 'new' });
    expect(texts(await repo.readFiles('p1', first.commitId))).toEqual({
      'a.txt': 'one',
      'dir/b.txt': 'bee',
      'dir/sub/c.txt': 'sea',
    });
    expect(texts(await repo.readFiles('p1', first.commitId.slice(0, 8)))).toHaveProperty('a.txt', 'one');
    expect(texts(await repo.readFiles('p1', 'main'))).toHaveProperty('a.txt', 'two');
    const log = await repo.log('p1', 10);
    expect(log.map((c) => [c.commitId, c.message, c.authorName])).toEqual([
      [second.commitId, 'second', 'Ada'],
      [first.commitId, 'first', 'Ada'],
    ]);
    expect(log[0].at).toBeInstanceOf(Date);
    expect(Math.abs(log[0].at.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await repo.log('p1', 1)).map((c) => c.commitId)).toEqual([second.commitId]);
  });

  it('reports changed:false with the current head when nothing changed, and writes nothing', async () => {
    const first = await repo.commit('p1', change({ 'a.txt': 'same' }, 'first'));
    const puts = objects.putCount;
    expect(await repo.commit('p1', change({ 'a.txt': 'same' }, 'again', ['not-there']))).toEqual({
      commitId: first.commitId,
      changed: false,
    });
    expect(await repo.commit('p1', change({}, 'empty'))).toEqual({ commitId: first.commitId, changed: false });
    expect(objects.putCount).toBe(puts);
    expect(await repo.log('p1', 10)).toHaveLength(1);
  });

  it('round-trips binary files byte for byte', async () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31 + (i >> 9)) & 0xff);
    await repo.commit('p1', change({ 'bin/blob.dat': bytes, 'text.txt': 'ünïcødé ✓' }, 'binary'));
    const files = await repo.readFiles('p1');
    expect(files.get('bin/blob.dat')).toEqual(bytes);
    expect(new TextDecoder().decode(files.get('text.txt'))).toBe('ünïcødé ✓');
  });

  it('serialises concurrent commits on one key: every commit lands in the log', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => repo.commit('p1', change({ [`f${i}.txt`]: `v${i}` }, `commit ${i}`))),
    );
    expect(results.every((r) => r.changed)).toBe(true);
    const log = await repo.log('p1', 10);
    expect(log.map((c) => c.message).sort()).toEqual(['commit 0', 'commit 1', 'commit 2', 'commit 3', 'commit 4']);
    expect(Object.keys(texts(await repo.readFiles('p1'))).sort()).toEqual([
      'f0.txt',
      'f1.txt',
      'f2.txt',
      'f3.txt',
      'f4.txt',
    ]);
  });

  it('keeps repositories apart and accepts nested repository keys', async () => {
    await repo.commit('tenant-1/p1', change({ 'a.txt': '1' }, 'one'));
    await repo.commit('tenant-2/p1', change({ 'b.txt': '2' }, 'two'));
    expect(texts(await repo.readFiles('tenant-1/p1'))).toEqual({ 'a.txt': '1' });
    expect(await objects.list('semantic/git/')).toEqual([
      'semantic/git/tenant-1/p1.tar',
      'semantic/git/tenant-2/p1.tar',
    ]);
  });

  it('refuses bad repository keys, bad paths and unknown refs with their codes', async () => {
    expect(await codeOf(repo.commit('../x', change({ a: '1' }, 'm')))).toBe('invalid_key');
    expect(await codeOf(repo.readFiles('/abs'))).toBe('invalid_key');
    for (const path of ['../up', '/abs', 'a//b', '.git/config', 'x/.GIT/y', '']) {
      expect(await codeOf(repo.commit('p1', change({ [path]: '1' }, 'm'))), path).toBe('invalid_path');
    }
    expect(await codeOf(repo.commit('p1', change({ a: '1', 'a/b': '2' }, 'm')))).toBe('invalid_path');
    await repo.commit('p1', change({ a: '1' }, 'm'));
    expect(await codeOf(repo.readFiles('p1', 'no-such-branch'))).toBe('not_found');
    expect(await codeOf(repo.readFiles('p1', '0'.repeat(40)))).toBe('not_found');
  });

  it('refuses a commit with conflict when another process replaced the archive meanwhile', async () => {
    await repo.commit('p1', change({ a: '1' }, 'first'));
    const elsewhere = createObjectStoreGitRepo({ objectStore: objects, scratchDir, keyPrefix: 'semantic/' });
    const realGet = objects.get.bind(objects);
    let calls = 0;
    objects.get = async (key) => {
      const result = await realGet(key);
      // Between this process's restore (first get) and its check (second get), another process commits.
      if (++calls === 1) await elsewhere.commit('p1', change({ b: '2' }, 'from elsewhere'));
      return result;
    };
    expect(await codeOf(repo.commit('p1', change({ c: '3' }, 'loses')))).toBe('conflict');
    objects.get = realGet;
    expect((await repo.log('p1', 10)).map((c) => c.message)).toEqual(['from elsewhere', 'first']);
  });
});
