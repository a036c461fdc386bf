/**
 * RateLimiter port on rate-limiter-flexible: fixed windows counted in Redis when a queue store is
 * configured (every replica shares the count), in process memory otherwise.
 *
 * Source: ../shared/spec/semantic-query-service.md § Limits (rate limit per client IP, 120 per 60 s).
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../ports/rate-limiter.ts';
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

/** Creates a RateLimiter. A Redis failure is not swallowed: the caller answers it as an error. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const base = { points: options.points, duration: options.durationSeconds, keyPrefix: options.keyPrefix };
  const limiter = options.redis ? new RateLimiterRedis({ ...base, storeClient: options.redis, useRedisPackage: false }) : new RateLimiterMemory(base);
  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key, 1);
        return { allowed: true, retryAfterSeconds: 0, remaining: res.remainingPoints };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), remaining: 0 };
        }
        throw rejection;
      }
    },
  };
}
