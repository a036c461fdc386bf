/**
 * Contract suite of the {@link ObjectStore} port: every adapter (the in-memory fake, the filesystem,
 * S3) registers it from its own test file and must pass it unchanged.
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md § Rules 5.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../ports/object-store.ts';

/** What the factory of {@link objectStoreContract} returns for one test. */
export interface ObjectStoreFixture {
  /** A store with no objects. */
  store: ObjectStore;
  /** Removes everything `make` created. */
  cleanup(): Promise<void>;
}

const text = (value: string) => new TextEncoder().encode(value);
const decode = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

/** True when `a` and `b` hold the same bytes (a plain loop: fast enough for 20 MB, unlike deep equality). */
export function sameBytes(a: Uint8Array | null, b: Uint8Array): boolean {
  if (a === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Registers the ObjectStore contract as a vitest `describe` block named `ObjectStore contract: <name>`.
 * @param name - adapter name shown in test output
 * @param make - creates a fresh, empty store per test
 */
export function objectStoreContract(name: string, make: () => Promise<ObjectStoreFixture>): void {
  describe(`ObjectStore contract: ${name}`, () => {
    let fixture: ObjectStoreFixture;
    const state = {} as ObjectStoreState;
    beforeEach(async () => {
      fixture = await make();
      state.store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    registerPutAndGetCases(state);
    registerByteCases(state);
    registerDeleteAndListCases(state);
  });
}

/** The store of the running test (set before each). */
interface ObjectStoreState {
  store: ObjectStore;
}

/** Puts, gets and heads: missing keys, overwrites, empty objects. */
function registerPutAndGetCases(state: ObjectStoreState): void {
  it('puts, gets and heads an object', async () => {
    const { store } = state;
    await store.put('docs/readme.txt', text('hello'), { contentType: 'text/plain' });
    expect(decode(await store.get('docs/readme.txt'))).toBe('hello');
    expect(await store.head('docs/readme.txt')).toEqual({ size: 5 });
  });

  it('answers null for missing keys, including a key that is only a prefix of others', async () => {
    const { store } = state;
    // A key that is both an object and the folder of another (S3 allows `a` and `a/b`) is not part of
    // the contract: the filesystem adapter refuses it with `key_conflict`.
    await store.put('a/b/c.txt', text('x'));
    expect(await store.get('missing.txt')).toBeNull();
    expect(await store.head('missing.txt')).toBeNull();
    expect(await store.get('a/b')).toBeNull();
    expect(await store.head('a')).toBeNull();
    expect(await store.get('a/b/c.txt/deeper')).toBeNull();
  });

  it('overwrites an object', async () => {
    const { store } = state;
    await store.put('k', text('first, longer value'));
    await store.put('k', text('second'));
    expect(decode(await store.get('k'))).toBe('second');
    expect(await store.head('k')).toEqual({ size: 6 });
    expect(await store.list('')).toEqual(['k']);
  });

  it('stores an empty object', async () => {
    const { store } = state;
    await store.put('empty', new Uint8Array(0));
    expect(await store.get('empty')).toEqual(new Uint8Array(0));
    expect(await store.head('empty')).toEqual({ size: 0 });
    expect(await store.list('')).toEqual(['empty']);
  });
}

/** The bytes stored: every byte value, copies the caller may change, a 20 MB object. */
function registerByteCases(state: ObjectStoreState): void {
  it('round-trips every byte value', async () => {
    const { store } = state;
    const bytes = Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 3) % 256);
    await store.put('bin/all-bytes', bytes, { contentType: 'application/octet-stream' });
    expect(sameBytes(await store.get('bin/all-bytes'), bytes)).toBe(true);
  });

  it('returns bytes the caller can change without changing the store', async () => {
    const { store } = state;
    const bytes = text('abc');
    await store.put('copy', bytes);
    bytes[0] = 120;
    const read = (await store.get('copy')) as Uint8Array;
    read[1] = 120;
    expect(decode(await store.get('copy'))).toBe('abc');
  });

  it('stores a 20 MB object', async () => {
    const { store } = state;
    const size = 20 * 1024 * 1024;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i ^ (i >>> 8) ^ (i >>> 16)) & 0xff;
    await store.put('big/blob.bin', bytes);
    expect(await store.head('big/blob.bin')).toEqual({ size });
    expect(sameBytes(await store.get('big/blob.bin'), bytes)).toBe(true);
  });
}

/** Deletes and listings under a prefix. */
function registerDeleteAndListCases(state: ObjectStoreState): void {
  it('deletes an object; deleting a missing one is not an error', async () => {
    const { store } = state;
    await store.put('x/y', text('1'));
    await store.put('x/z', text('2'));
    await store.delete('x/y');
    await store.delete('x/y');
    await store.delete('never/there');
    expect(await store.get('x/y')).toBeNull();
    expect(await store.head('x/y')).toBeNull();
    expect(await store.list('x/')).toEqual(['x/z']);
    await store.delete('x/z');
    expect(await store.list('')).toEqual([]);
  });

  it('lists keys under a prefix, nested keys included, in lexicographic order', async () => {
    const { store } = state;
    const keys = ['b/2', 'a/1', 'a/b/c/d', 'a/10', 'a/b/e', 'a-b', 'a.txt', 'ab', 'b/1', 'A/upper', 'a/b/c2'];
    for (const key of [...keys].reverse()) await store.put(key, text(key));
    expect(await store.list('')).toEqual([...keys].sort());
    expect(await store.list('a/')).toEqual(['a/1', 'a/10', 'a/b/c/d', 'a/b/c2', 'a/b/e']);
    expect(await store.list('a')).toEqual(['a-b', 'a.txt', 'a/1', 'a/10', 'a/b/c/d', 'a/b/c2', 'a/b/e', 'ab']);
    expect(await store.list('a/b/c')).toEqual(['a/b/c/d', 'a/b/c2']);
    expect(await store.list('a/b/c/')).toEqual(['a/b/c/d']);
    expect(await store.list('a/1')).toEqual(['a/1', 'a/10']);
    expect(await store.list('a/10')).toEqual(['a/10']);
    expect(await store.list('b/')).toEqual(['b/1', 'b/2']);
    expect(await store.list('c/')).toEqual([]);
    expect(await store.list('nothing')).toEqual([]);
  });
}
