/**
 * Fixed-window rate counter port (rate-limiter-flexible on Redis when a queue store is configured,
 * in memory otherwise), so every replica behind one address shares the count.
 */
export interface RateLimiter {
  /**
   * Counts one request for `key`.
   * @returns allowed: false when over the limit; retryAfterSeconds: whole seconds until the window frees a slot
   */
  consume(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number; remaining: number }>;
}
