/**
 * Lease port: a named lock in the queue store held by one owner until it lapses or is released.
 * Used for the single-dispatcher lease, the data-update lock and a connection's OAuth refresh
 * (core/collection/oauth-refresh.ts, on the document store).
 *
 * Source: spec/platform-service.md § Single-dispatcher lease, § Data update at boot.
 */
import { PlatformError } from './platform-error.ts';

/**
 * A named lock held by one owner until it lapses or is released.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease.
 */
export interface Lease {
  /**
   * Takes the lease `name` for `owner` when it is free or lapsed.
   * @param ttlMs - lapse time after this call (30,000 for the dispatcher lease)
   * @returns true when `owner` now holds it
   */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease when `owner` still holds it; false when it was lost. */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases the lease when `owner` holds it (no effect otherwise). */
  release(name: string, owner: string): Promise<void>;
  /** The current holder, or null when free. */
  holder(name: string): Promise<string | null>;
}

/**
 * A lease name or owner, checked the same way by every Lease adapter.
 * @throws PlatformError `invalid_argument` (400) for an empty or non-string value
 *
 * Source: spec/platform-service.md § Single-dispatcher lease.
 */
export function checkedLeaseArgument(what: 'name' | 'owner', value: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new PlatformError('invalid_argument', `A lease ${what} must be a non-empty string.`, { status: 400 });
  }
  return value;
}

/**
 * `ttlMs` rounded up to whole milliseconds, checked the same way by every Lease adapter.
 * @throws PlatformError `invalid_argument` (400) for a ttl that is not a positive number
 *
 * Source: spec/platform-service.md § Single-dispatcher lease.
 */
export function checkedLeaseTtlMs(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new PlatformError('invalid_argument', 'A lease ttlMs must be a positive number of milliseconds.', {
      status: 400,
    });
  }
  return Math.ceil(ttlMs);
}
