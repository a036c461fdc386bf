import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPlatformError } from '../../ports/platform-error.ts';
import { objectStoreContract } from '../../testing/object-store.contract.ts';
import { createFsObjectStore, fsObjectStoreRootFromUrl } from './fs-object-store.ts';

objectStoreContract('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-objects-'));
  return {
    store: createFsObjectStore({ root: join(dir, 'objects') }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

const codeOf = (run: () => Promise<unknown>) =>
  run().then(() => 'ok', (e: unknown) => (isPlatformError(e) ? e.code : e));

describe('createFsObjectStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-objects-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses keys that escape the root or have empty segments with invalid_key', async () => {
    const store = createFsObjectStore({ root: join(dir, 'objects') });
    const one = new Uint8Array([1]);
    for (const key of ['', '..', '../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/', './a', 'a\\b', 'a/.~tmp-1']) {
      expect(await codeOf(() => store.put(key, one)), key).toBe('invalid_key');
      expect(await codeOf(() => store.get(key)), key).toBe('invalid_key');
    }
    expect(await codeOf(() => store.list('../'))).toBe('invalid_key');
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a key that is both an object and a folder with key_conflict', async () => {
    const store = createFsObjectStore({ root: dir });
    await store.put('a/b', new Uint8Array([1]));
    expect(await codeOf(() => store.put('a', new Uint8Array([2])))).toBe('key_conflict');
    expect(await codeOf(() => store.put('a/b/c', new Uint8Array([2])))).toBe('key_conflict');
    expect(await store.list('')).toEqual(['a/b']);
  });

  it('leaves no temporary files, ignores stray ones in list, and prunes emptied folders', async () => {
    const store = createFsObjectStore({ root: dir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put('x/y/same', new Uint8Array([i]))));
    expect(await readdir(join(dir, 'x', 'y'))).toEqual(['same']);
    await writeFile(join(dir, 'x', 'y', '.~tmp-deadbeef'), 'partial');
    expect(await store.list('x/')).toEqual(['x/y/same']);
    await rm(join(dir, 'x', 'y', '.~tmp-deadbeef'));
    await store.delete('x/y/same');
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps objects where a second store on the same root sees them', async () => {
    await createFsObjectStore({ root: dir }).put('k/v', new TextEncoder().encode('shared'));
    expect(new TextDecoder().decode((await createFsObjectStore({ root: dir }).get('k/v')) ?? undefined)).toBe('shared');
  });
});

describe('fsObjectStoreRootFromUrl', () => {
  it('turns a file URL into an absolute path', () => {
    expect(fsObjectStoreRootFromUrl('file:///data/objects')).toBe('/data/objects');
    expect(fsObjectStoreRootFromUrl('file:///data/my%20objects/')).toBe('/data/my objects/');
  });

  it('refuses other URLs with invalid_config', () => {
    for (const url of ['s3://bucket', 'http://localhost:9000', '/data/objects', 'file://remote-host/data']) {
      let code: unknown;
      try {
        fsObjectStoreRootFromUrl(url);
      } catch (error) {
        code = isPlatformError(error) ? error.code : error;
      }
      expect(code, url).toBe('invalid_config');
    }
  });
});
