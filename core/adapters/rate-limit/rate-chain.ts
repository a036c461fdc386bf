/**
 * Several fixed-window rate counters checked for one call in order, in one round trip to the queue store: an
 * endpoint call counts against its caller's limit and then its endpoint's. Without a queue store the counters live
 * in this process (rate-limiter-flexible's RateLimiterMemory).
 *
 * Why not rate-limiter-flexible's RateLimiterUnion: it consumes every limiter (in parallel, one key for all), so a
 * caller refused at its own limit would still use up the endpoint's calls and shut out every other caller. Here a
 * refused counter leaves the later ones uncounted, as counting them one after the other did; the window arithmetic
 * is the library's (its incr-and-TTL script: a window of `durationSeconds` starts at the first call of a key).
 *
 * Source: spec/platform-service.md § Limits (endpoint calls per minute, per caller and per endpoint),
 * § Errors (429 with a retry time); docs/architecture.md § Queues and collections (keys in the queue store).
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateChain, RateCheck, RateRefusal } from '../../ports/rate-limiter.ts';
import type { RedisConnection } from '../redis/open-redis.ts';

export type { RateChain, RateCheck, RateRefusal };

/** Options of {@link createRateChain}. */
export interface RateChainOptions {
  /** Window length in seconds (whole number ≥ 1). */
  durationSeconds: number;
  /** Prefix of every key, e.g. `cairn:endpoint-rate`. */
  keyPrefix: string;
  /** The shared queue store (one server or a cluster); omitted counts in this process only. */
  redis?: RedisConnection;
}

/**
 * KEYS: the counters in order; ARGV[1]: window seconds; ARGV[1 + i]: points of KEYS[i]. Each counter as the
 * library's incr-and-TTL script counts it; returns {index of the first refusing counter (1-based), its TTL in ms},
 * or {0, 0}.
 */
const chainScript = `
for i, key in ipairs(KEYS) do
  redis.call('set', key, 0, 'EX', ARGV[1], 'NX')
  local consumed = redis.call('incrby', key, 1)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, ARGV[1])
    ttl = 1000 * ARGV[1]
  end
  if consumed > tonumber(ARGV[i + 1]) then return {i, ttl} end
end
return {0, 0}
`;

type ChainClient = RedisConnection & {
  cairnRateChain?: (numberOfKeys: number, ...args: string[]) => Promise<[number, number]>;
};

/** Creates a {@link RateChain}; see the module comment. */
export function createRateChain(options: RateChainOptions): RateChain {
  const seconds = options.durationSeconds;
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new RangeError(`durationSeconds must be a whole number ≥ 1, not ${seconds}`);
  }
  const checked = (checks: RateCheck[]) => {
    for (const { points } of checks) {
      if (!Number.isInteger(points) || points < 1) {
        throw new RangeError(`points must be a whole number ≥ 1, not ${points}`);
      }
    }
    return checks;
  };
  const retryAfter = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const redis = options.redis as ChainClient | undefined;
  if (redis) {
    // evalsha after the first call (ioredis defineCommand), on one server and on a cluster alike.
    if (typeof redis.cairnRateChain !== 'function') redis.defineCommand('cairnRateChain', { lua: chainScript });
    return {
      async consume(hashTag, checks) {
        // The {hash tag} puts every key of one call in one cluster slot; the limit is in the key, so a changed
        // limit starts a new window.
        const keys = checked(checks).map((c, i) => `${options.keyPrefix}:{${hashTag}}:${i}:${c.points}:${c.key}`);
        const limits = checks.map((c) => String(c.points));
        const [index, ttl] = await redis.cairnRateChain!(keys.length, ...keys, String(seconds), ...limits);
        return index === 0 ? undefined : { index: Number(index) - 1, retryAfterSeconds: retryAfter(Number(ttl)) };
      },
    };
  }
  const byPoints = new Map<number, RateLimiterMemory>();
  const memory = (points: number) => {
    let limiter = byPoints.get(points);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points, duration: seconds, keyPrefix: options.keyPrefix });
      byPoints.set(points, limiter);
    }
    return limiter;
  };
  return {
    async consume(hashTag, checks) {
      for (const [index, check] of checked(checks).entries()) {
        try {
          await memory(check.points).consume(`{${hashTag}}:${index}:${check.key}`);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          return { index, retryAfterSeconds: retryAfter(rejection.msBeforeNext) };
        }
      }
      return undefined;
    },
  };
}
