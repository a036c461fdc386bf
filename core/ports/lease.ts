/**
 * Lease port: a named lock in the queue store held by one owner until it lapses or is released.
 * Used for the single-dispatcher lease and the data-update lock.
 *
 * Source: ../shared/spec/platform-service.md § Single-dispatcher lease, § Data update at boot.
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
