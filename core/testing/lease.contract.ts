/**
 * Contract suite of the {@link Lease} port: every adapter (the in-memory fake, Redis) registers it
 * from its own test file and must pass it unchanged. Lapse cases use a 300 ms ttl and wait past it:
 * they check behaviour, not timing.
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md
 * § Single-dispatcher lease.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Lease } from '../ports/lease.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { skipBecause } from './skip.ts';

/**
 * What the factory of {@link leaseContract} returns for one test.
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md § Single-dispatcher lease.
 */
export interface LeaseFixture {
  /** A lease store in which no lease is held. */
  lease: Lease;
  /** A second lease store over the same data (another process's view); omit when there is none. */
  openAnother?(): Promise<Lease>;
  /** Releases everything `make` opened and removes its data. */
  cleanup(): Promise<void>;
}

const LONG_MS = 30_000;
const SHORT_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registers the Lease contract as a vitest `describe` block named `Lease contract: <name>`.
 * @param name - adapter name shown in test output
 * @param make - creates a fresh lease store per test
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md § Single-dispatcher lease.
 */
export function leaseContract(name: string, make: () => Promise<LeaseFixture>): void {
  describe(`Lease contract: ${name}`, () => {
    let fixture: LeaseFixture;
    let lease: Lease;
    beforeEach(async () => {
      fixture = await make();
      lease = fixture.lease;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    registerOwnershipCases(() => lease);
    registerHolderOnlyCases(() => lease);
    registerLapseCases(() => lease);
    registerSharingCases(() => lease, () => fixture);
  });
}

function registerOwnershipCases(lease: () => Lease): void {
  it('acquires a free lease and reports its holder', async () => {
    expect(await lease().holder('dispatcher')).toBeNull();
    expect(await lease().acquire('dispatcher', 'host-a', LONG_MS)).toBe(true);
    expect(await lease().holder('dispatcher')).toBe('host-a');
  });

  it('refuses the lease to another owner while it is held; the holder may acquire again', async () => {
    await lease().acquire('dispatcher', 'host-a', LONG_MS);
    expect(await lease().acquire('dispatcher', 'host-b', LONG_MS)).toBe(false);
    expect(await lease().holder('dispatcher')).toBe('host-a');
    expect(await lease().acquire('dispatcher', 'host-a', LONG_MS)).toBe(true);
    expect(await lease().holder('dispatcher')).toBe('host-a');
  });

  it('keeps leases of different names apart', async () => {
    await lease().acquire('dispatcher', 'host-a', LONG_MS);
    expect(await lease().acquire('data-update', 'host-b', LONG_MS)).toBe(true);
    await lease().release('data-update', 'host-b');
    expect(await lease().holder('dispatcher')).toBe('host-a');
    expect(await lease().holder('data-update')).toBeNull();
  });

  it('refuses an empty name or owner and a ttl that is not positive with invalid_argument', async () => {
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(() => 'ok', (e: unknown) => (isPlatformError(e) ? e.code : e));
    expect(await codeOf(lease().acquire('', 'host-a', LONG_MS))).toBe('invalid_argument');
    expect(await codeOf(lease().acquire('dispatcher', '', LONG_MS))).toBe('invalid_argument');
    expect(await codeOf(lease().acquire('dispatcher', 'host-a', 0))).toBe('invalid_argument');
    expect(await codeOf(lease().renew('dispatcher', 'host-a', -5))).toBe('invalid_argument');
    expect(await codeOf(lease().acquire('dispatcher', 'host-a', Number.NaN))).toBe('invalid_argument');
    expect(await lease().holder('dispatcher')).toBeNull();
  });
}

function registerHolderOnlyCases(lease: () => Lease): void {
  it('renews only for the holder', async () => {
    expect(await lease().renew('dispatcher', 'host-a', LONG_MS)).toBe(false);
    expect(await lease().holder('dispatcher')).toBeNull();
    await lease().acquire('dispatcher', 'host-a', LONG_MS);
    expect(await lease().renew('dispatcher', 'host-b', LONG_MS)).toBe(false);
    expect(await lease().renew('dispatcher', 'host-a', LONG_MS)).toBe(true);
    expect(await lease().holder('dispatcher')).toBe('host-a');
  });

  it('releases only for the holder; releasing a free lease is no error', async () => {
    await lease().release('dispatcher', 'host-a');
    await lease().acquire('dispatcher', 'host-a', LONG_MS);
    await lease().release('dispatcher', 'host-b');
    expect(await lease().holder('dispatcher')).toBe('host-a');
    await lease().release('dispatcher', 'host-a');
    expect(await lease().holder('dispatcher')).toBeNull();
    expect(await lease().renew('dispatcher', 'host-a', LONG_MS)).toBe(false);
    expect(await lease().acquire('dispatcher', 'host-b', LONG_MS)).toBe(true);
  });
}

function registerLapseCases(lease: () => Lease): void {
  it('lets a lease lapse when its holder stops renewing; then another owner takes it', async () => {
    expect(await lease().acquire('dispatcher', 'host-a', SHORT_MS)).toBe(true);
    await sleep(SHORT_MS * 2);
    expect(await lease().holder('dispatcher')).toBeNull();
    expect(await lease().renew('dispatcher', 'host-a', LONG_MS)).toBe(false);
    expect(await lease().acquire('dispatcher', 'host-b', LONG_MS)).toBe(true);
    expect(await lease().holder('dispatcher')).toBe('host-b');
  });

  it('keeps a renewed lease past its first ttl', async () => {
    await lease().acquire('dispatcher', 'host-a', SHORT_MS);
    expect(await lease().renew('dispatcher', 'host-a', LONG_MS)).toBe(true);
    await sleep(SHORT_MS * 2);
    expect(await lease().holder('dispatcher')).toBe('host-a');
    expect(await lease().acquire('dispatcher', 'host-b', LONG_MS)).toBe(false);
  });

  it('restarts the time to lapse when the holder acquires again', async () => {
    await lease().acquire('dispatcher', 'host-a', SHORT_MS);
    expect(await lease().acquire('dispatcher', 'host-a', LONG_MS)).toBe(true);
    await sleep(SHORT_MS * 2);
    expect(await lease().holder('dispatcher')).toBe('host-a');
  });
}

function registerSharingCases(lease: () => Lease, fixture: () => LeaseFixture): void {
  it('gives a free lease to exactly one of many owners asking at once', async () => {
    const owners = Array.from({ length: 20 }, (_, i) => `host-${i}`);
    const results = await Promise.all(owners.map((owner) => lease().acquire('dispatcher', owner, LONG_MS)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await lease().holder('dispatcher')).toBe(owners[results.indexOf(true)]);
  });

  it('is one lease for two store instances over the same data', async (ctx) => {
    const openAnother = fixture().openAnother;
    if (openAnother === undefined) {
      return skipBecause(
        ctx,
        'this lease store gives no second instance over the same data (the fixture has no openAnother)',
      );
    }
    const other = await openAnother();
    expect(other, 'openAnother must open a second instance, not hand back the first').not.toBe(lease());
    expect(await lease().acquire('dispatcher', 'host-a', LONG_MS)).toBe(true);
    expect(await other.acquire('dispatcher', 'host-b', LONG_MS)).toBe(false);
    expect(await other.holder('dispatcher')).toBe('host-a');
    await lease().release('dispatcher', 'host-a');
    expect(await other.acquire('dispatcher', 'host-b', LONG_MS)).toBe(true);
    expect(await lease().holder('dispatcher')).toBe('host-b');
  });
}
