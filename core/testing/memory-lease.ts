/**
 * In-memory {@link Lease} fake for unit tests, with the Redis lease's semantics: a lease lapses
 * `ttlMs` after its last acquire or renew; the holder may acquire again (restarting its time);
 * only the holder renews or releases.
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (fakes in core/testing);
 * ../shared/spec/platform-service.md § Single-dispatcher lease.
 */
import type { Lease } from '../ports/lease.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { systemClock } from '../adapters/runtime/system.ts';

/**
 * Options of {@link createMemoryLease}.
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (fakes in core/testing).
 */
export interface MemoryLeaseOptions {
  /** Clock in epoch milliseconds; default the system clock. Tests inject one to move time without waiting. */
  now?: () => number;
  /** The leases to open, shared with other instances (another process's view); default fresh, holding none. */
  data?: MemoryLeaseData;
}

/** Leases shareable by several {@link createMemoryLease} instances, as processes share one store. */
export interface MemoryLeaseData {
  /** @internal lease name → holder and expiry */
  readonly leases: Map<string, { owner: string; expiresAtMs: number }>;
}

/** Fresh lease data holding no lease. */
export function createMemoryLeaseData(): MemoryLeaseData {
  return { leases: new Map() };
}

/**
 * A lease store instance over fresh data holding no lease, or over `options.data` shared with other instances.
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (fakes in core/testing).
 */
export function createMemoryLease(options: MemoryLeaseOptions = {}): Lease {
  const now = options.now ?? (() => systemClock.now().getTime());
  const { leases } = options.data ?? createMemoryLeaseData();
  const current = (name: string) => {
    const lease = leases.get(checked('name', name));
    if (lease !== undefined && lease.expiresAtMs <= now()) {
      leases.delete(name);
      return undefined;
    }
    return lease;
  };
  return {
    async acquire(name, owner, ttlMs) {
      const expiresAtMs = now() + checkedTtl(ttlMs);
      const lease = current(name);
      if (lease !== undefined && lease.owner !== checked('owner', owner)) return false;
      leases.set(name, { owner: checked('owner', owner), expiresAtMs });
      return true;
    },
    async renew(name, owner, ttlMs) {
      const expiresAtMs = now() + checkedTtl(ttlMs);
      checked('owner', owner);
      const lease = current(name);
      if (lease === undefined || lease.owner !== owner) return false;
      lease.expiresAtMs = expiresAtMs;
      return true;
    },
    async release(name, owner) {
      checked('owner', owner);
      if (current(name)?.owner === owner) leases.delete(name);
    },
    async holder(name) {
      return current(name)?.owner ?? null;
    },
  };
}

function checked(what: 'name' | 'owner', value: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new PlatformError('invalid_argument', `A lease ${what} must be a non-empty string.`, { status: 400 });
  }
  return value;
}

function checkedTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new PlatformError('invalid_argument', 'A lease ttlMs must be a positive number of milliseconds.', { status: 400 });
  }
  return Math.ceil(ttlMs);
}
