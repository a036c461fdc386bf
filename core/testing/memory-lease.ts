/**
 * In-memory {@link Lease} fake for unit tests, with the Redis lease's semantics: a lease lapses
 * `ttlMs` after its last acquire or renew; the holder may acquire again (restarting its time);
 * only the holder renews or releases.
 *
 * Source: docs/architecture.md § Ports and adapters (fakes in core/testing);
 * spec/platform-service.md § Single-dispatcher lease.
 */
import { checkedLeaseArgument, checkedLeaseTtlMs, type Lease } from '../ports/lease.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';

/**
 * Options of {@link createMemoryLease}.
 *
 * Source: docs/architecture.md § Ports and adapters (fakes in core/testing).
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
 * Source: docs/architecture.md § Ports and adapters (fakes in core/testing).
 */
export function createMemoryLease(options: MemoryLeaseOptions = {}): Lease {
  const now = options.now ?? (() => systemClock.now().getTime());
  const { leases } = options.data ?? createMemoryLeaseData();
  const current = (name: string) => {
    const lease = leases.get(checkedLeaseArgument('name', name));
    if (lease !== undefined && lease.expiresAtMs <= now()) {
      leases.delete(name);
      return undefined;
    }
    return lease;
  };
  return {
    async acquire(name, owner, ttlMs) {
      const expiresAtMs = now() + checkedLeaseTtlMs(ttlMs);
      const lease = current(name);
      if (lease !== undefined && lease.owner !== checkedLeaseArgument('owner', owner)) return false;
      leases.set(name, { owner: checkedLeaseArgument('owner', owner), expiresAtMs });
      return true;
    },
    async renew(name, owner, ttlMs) {
      const expiresAtMs = now() + checkedLeaseTtlMs(ttlMs);
      checkedLeaseArgument('owner', owner);
      const lease = current(name);
      if (lease === undefined || lease.owner !== owner) return false;
      lease.expiresAtMs = expiresAtMs;
      return true;
    },
    async release(name, owner) {
      checkedLeaseArgument('owner', owner);
      if (current(name)?.owner === owner) leases.delete(name);
    },
    async holder(name) {
      return current(name)?.owner ?? null;
    },
  };
}
