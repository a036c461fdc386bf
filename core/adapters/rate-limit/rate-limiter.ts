/**
 * RateLimiter port on rate-limiter-flexible: fixed windows counted in Redis when a queue store is
 * configured (every replica shares the count), in process memory otherwise.
 *
 * Source: spec/semantic-query-service.md § Limits (rate limit per client IP, 120 per 60 s);
 * docs/decisions.md D18 § 3 (each call of a batch counts).
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateCount, RateLimiter } from '../../ports/rate-limiter.ts';
import type { RedisConnection } from '../redis/open-redis.ts';

/** Options: `points` requests per `durationSeconds` window; `keyPrefix` separates counters. */
export interface RateLimiterOptions {
  points: number;
  durationSeconds: number;
  keyPrefix: string;
  /**
   * Shared store: one server or a cluster, as {@link RedisConnection} (what `openRedis` returns);
   * omitted counts in this process only.
   */
  redis?: RedisConnection;
}

/**
 * Creates a RateLimiter. A Redis failure is not swallowed: the caller answers it as an error.
 * A count above 1 is checked against the window's remaining points first and refused untaken when it does not fit.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const base = { points: options.points, duration: options.durationSeconds, keyPrefix: options.keyPrefix };
  const limiter = options.redis
    ? new RateLimiterRedis({ ...base, storeClient: options.redis, useRedisPackage: false })
    : new RateLimiterMemory(base);
  const limit = options.points;
  const refused = (res: RateLimiterRes): RateCount => ({
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    remaining: Math.max(0, res.remainingPoints),
    limit,
  });
  return {
    async consume(key, points = 1) {
      if (!Number.isInteger(points) || points < 1) {
        throw new RangeError(`points must be a whole number ≥ 1, not ${points}`);
      }
      if (points > 1) {
        const seen = await limiter.get(key);
        const used = seen?.consumedPoints ?? 0;
        if (used + points > limit) return refused(seen ?? new RateLimiterRes(limit, options.durationSeconds * 1000, 0));
      }
      try {
        const res = await limiter.consume(key, points);
        return { allowed: true, retryAfterSeconds: 0, remaining: res.remainingPoints, limit };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { ...refused(rejection), remaining: 0 };
        throw rejection;
      }
    },
  };
}
