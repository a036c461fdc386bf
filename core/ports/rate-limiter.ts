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

/** One counter a call is checked against: `points` calls per window for `key`. */
export interface RateCheck {
  /** The counter's key within its chain's `hashTag` (any text). */
  key: string;
  /** Calls allowed per window (whole number ≥ 1). */
  points: number;
}

/** The first counter that refused a call: its index in the checks given, and whole seconds until it frees one. */
export interface RateRefusal {
  index: number;
  retryAfterSeconds: number;
}

/**
 * Several fixed-window counters checked for one call in order, in one round trip (core/adapters/rate-limit/
 * rate-chain.ts: the queue store's, or this process's without one): an endpoint call counts against its caller's
 * limit and then its endpoint's.
 */
export interface RateChain {
  /**
   * Counts one call against each check in order and stops at the first that refuses (the refusing counter counts
   * the call; later ones do not). All checks of one call share `hashTag` (the keys of one Lua call must live in one
   * cluster slot: e.g. the connection id).
   * @returns undefined when every counter allowed the call, else the first refusal
   * @throws the queue store's error (a failed count is not taken as allowed); RangeError for points not ≥ 1
   */
  consume(hashTag: string, checks: RateCheck[]): Promise<RateRefusal | undefined>;
}
