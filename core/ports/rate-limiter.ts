/**
 * Fixed-window rate counter port (rate-limiter-flexible on Redis when a queue store is configured,
 * in memory otherwise), so every replica behind one address shares the count.
 */
export interface RateLimiter {
  /**
   * Counts `points` (default 1: one request or one call) for `key` in the current window.
   * More than one point is first checked against what the window has left: a count that does not fit is refused
   * without being taken (so a refused batch leaves the window's remaining calls to smaller requests); a concurrent
   * count can still make the taking itself fail, and then it is taken and refused, as one point over the limit is.
   * @returns allowed: false when over the limit; retryAfterSeconds: whole seconds until the window frees a slot
   *   (0 when allowed); remaining: points left in the window after this count; limit: points per window
   */
  consume(key: string, points?: number): Promise<RateCount>;
}

/** The answer of {@link RateLimiter.consume}. */
export interface RateCount {
  allowed: boolean;
  retryAfterSeconds: number;
  remaining: number;
  /** Points per window (the configured limit). */
  limit: number;
}
