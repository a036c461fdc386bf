import { describe, expect, it } from 'vitest';
import { isPlatformError } from '../ports/platform-error.ts';
import { createMemoryObjectStore } from './memory-object-store.ts';
import { objectStoreContract } from './object-store.contract.ts';

objectStoreContract('memory fake', async () => ({ store: createMemoryObjectStore(), cleanup: async () => {} }));

describe('createMemoryObjectStore', () => {
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(() => 'ok', (e: unknown) => (isPlatformError(e) ? e.code : e));

  it('follows the filesystem store: invalid keys and object/folder conflicts are refused', async () => {
    const store = createMemoryObjectStore();
    const one = new Uint8Array([1]);
    expect(await codeOf(store.put('../x', one))).toBe('invalid_key');
    expect(await codeOf(store.put('/abs', one))).toBe('invalid_key');
    expect(await codeOf(store.put('a//b', one))).toBe('invalid_key');
    await store.put('a/b', one);
    expect(await codeOf(store.put('a', one))).toBe('key_conflict');
    expect(await codeOf(store.put('a/b/c', one))).toBe('key_conflict');
    expect(store.putCount).toBe(1);
  });
});
