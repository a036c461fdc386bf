/**
 * Contract suite of the {@link SecretStore} port: the db store (on the in-memory and SQLite document
 * stores) and the cloud store (against the local Secrets Manager protocol server) register it from
 * their own test files and must pass it unchanged.
 *
 * Source: spec/platform-service.md § Authentication rule 11; docs/architecture.md § Ports and adapters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SecretStore } from '../ports/secret-store.ts';

/** What one test case gets from the adapter under test. */
export interface SecretStoreFixture {
  store: SecretStore;
  /** Moves the store's clock forward by `ms`. */
  advance(ms: number): void;
  /** Requests the store has sent to its backing service so far; required with `readCache`. */
  requests?: () => number;
  /** Protocol breaches seen by the backing service (a ListSecrets call); must stay empty. */
  violations?: () => string[];
  cleanup(): Promise<void>;
}

/** The read cache lifetime every caching store keeps, in ms (5 minutes). */
const CACHE_MS = 5 * 60_000;

/** Options of {@link secretStoreContract}. */
export interface SecretStoreContractOptions {
  /** The store keeps values it read for 5 minutes (the cloud store): adds the cache cases. Default false. */
  readCache?: boolean;
}

/**
 * Registers the SecretStore contract as a vitest `describe` block named `SecretStore contract: <name>`.
 * @param name - adapter name shown in test output
 * @param make - creates a fresh, empty store per test
 * @param options - see {@link SecretStoreContractOptions}
 */
export function secretStoreContract(
  name: string,
  make: () => Promise<SecretStoreFixture>,
  options: SecretStoreContractOptions = {},
): void {
  describe(`SecretStore contract: ${name}`, () => {
    let fx: SecretStoreFixture;
    beforeEach(async () => {
      fx = await make();
    });
    afterEach(async () => {
      const violations = fx.violations?.() ?? [];
      await fx.cleanup();
      expect(violations).toEqual([]);
    });

    registerBasicCases(() => fx);
    registerLifecycleCases(() => fx);
    if (options.readCache) registerCacheCases(() => fx);
  });
}

/** Absent secrets and the round trip. */
function registerBasicCases(fixture: () => SecretStoreFixture): void {
  let fx: SecretStoreFixture;
  beforeEach(() => {
    fx = fixture();
  });

  it('returns null for a credential without a secret', async () => {
    expect(await fx.store.get('cred-none')).toBeNull();
  });

  it('round-trips fields, unicode and empty values included, and hands out copies', async () => {
    const fields = { apiKey: 'sk-live-ABC', password: 'pässwörd ✓ "quoted"\nline', empty: '' };
    const { version } = await fx.store.put('cred-1', fields);
    expect(version).toMatch(/\S/);
    const read = await fx.store.get('cred-1');
    expect(read).toEqual(fields);
    read!.apiKey = 'changed by caller';
    expect(await fx.store.get('cred-1')).toEqual(fields);
  });
}

/** Versions, separation and deletion. */
function registerLifecycleCases(fixture: () => SecretStoreFixture): void {
  let fx: SecretStoreFixture;
  beforeEach(() => {
    fx = fixture();
  });

  it('writes a new version per change and reads the newest at once', async () => {
    const first = await fx.store.put('cred-2', { token: 'one' });
    expect(await fx.store.get('cred-2')).toEqual({ token: 'one' });
    const second = await fx.store.put('cred-2', { token: 'two' });
    expect(second.version).not.toBe(first.version);
    expect(await fx.store.get('cred-2')).toEqual({ token: 'two' });
  });

  it('keeps credentials apart', async () => {
    await fx.store.put('cred-a', { token: 'a' });
    await fx.store.put('cred-b', { token: 'b' });
    expect(await fx.store.get('cred-a')).toEqual({ token: 'a' });
    expect(await fx.store.get('cred-b')).toEqual({ token: 'b' });
  });

  it(
    'deletes a secret (get is null after, even right after a cached read); ' + 'deleting a missing one is no error',
    async () => {
      await fx.store.put('cred-3', { token: 'x' });
      expect(await fx.store.get('cred-3')).toEqual({ token: 'x' });
      await fx.store.delete('cred-3');
      expect(await fx.store.get('cred-3')).toBeNull();
      await expect(fx.store.delete('cred-never')).resolves.toBeUndefined();
      expect(await fx.store.get('cred-a-other')).toBeNull();
    },
  );
}

/** Cases of the 5-minute read cache, counted in requests to the backing service. */
function registerCacheCases(fixture: () => SecretStoreFixture): void {
  describe('read cache', () => {
    const requests = () => {
      const count = fixture().requests;
      if (!count) throw new Error('a fixture with readCache must give requests()');
      return count();
    };
    it('serves a second read within 5 minutes from memory and reads again once 5 minutes have passed', async () => {
      const fx = fixture();
      await fx.store.put('cred-4', { token: 'cached' });
      expect(await fx.store.get('cred-4')).toEqual({ token: 'cached' });
      const afterFirst = requests();
      fx.advance(CACHE_MS - 1);
      expect(await fx.store.get('cred-4')).toEqual({ token: 'cached' });
      expect(requests()).toBe(afterFirst);
      fx.advance(1);
      expect(await fx.store.get('cred-4')).toEqual({ token: 'cached' });
      expect(requests()).toBe(afterFirst + 1);
    });

    it('drops the cached value on put and on delete', async () => {
      const fx = fixture();
      await fx.store.put('cred-5', { token: 'old' });
      expect(await fx.store.get('cred-5')).toEqual({ token: 'old' });
      await fx.store.put('cred-5', { token: 'new' });
      const beforeRead = requests();
      expect(await fx.store.get('cred-5')).toEqual({ token: 'new' });
      expect(requests()).toBe(beforeRead + 1);
      await fx.store.delete('cred-5');
      expect(await fx.store.get('cred-5')).toBeNull();
    });
  });
}
