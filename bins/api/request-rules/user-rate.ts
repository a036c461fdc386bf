/**
 * The per-user ceiling (PLATFORM_USER_RATE_PER_MINUTE): routes that start work — turns, evaluations,
 * design-agent turns, chat messages, trigger replays, connection tests — count one call per principal; over
 * the ceiling they answer 429 with Retry-After.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_USER_RATE_PER_MINUTE); § Limits (per-user
 * ceiling); § Errors (per-user ceiling exceeded: 429 with Retry-After).
 */
import type { Principal } from '../../../core/auth/principal.ts';
import { createRateLimiter } from '../../../core/adapters/rate-limit/rate-limiter.ts';
import type { RedisConnection } from '../../../core/adapters/redis/index.ts';
import { PlatformError } from '../../../core/ports/platform-error.ts';
import type { RateLimiter } from '../../../core/ports/rate-limiter.ts';
import { recordRateLimitRefusal } from '../../../core/telemetry/instruments.ts';

/**
 * The 429 refusal of the per-user ceiling; `errorToResponse` turns `retryAfterSeconds` into Retry-After.
 *
 * Source: spec/platform-service.md § Errors (per-user ceiling exceeded)
 */
export class UserRateLimitedError extends PlatformError {
  /** Whole seconds until the window frees a call. */
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Too many requests from you this minute; try again in ${retryAfterSeconds} s.`, { status: 429 });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Counts one work-starting call of `principal`.
 * @throws UserRateLimitedError (PlatformError `rate_limited`, 429, `retryAfterSeconds`) over the ceiling
 *
 * Source: spec/platform-service.md § Limits (per-user ceiling)
 */
export type ConsumeUserRate = (principal: Principal) => Promise<void>;

/**
 * Options of {@link createUserRate}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_USER_RATE_PER_MINUTE, QUEUE_URL)
 */
export interface UserRateOptions {
  /** PLATFORM_USER_RATE_PER_MINUTE (default 60). */
  perMinute: number;
  /** Queue store (one server or a cluster): every replica shares the count; omitted counts in this process. */
  redis?: RedisConnection;
  /** A ready limiter (tests pass a fake); wins over `perMinute`/`redis`. */
  limiter?: RateLimiter;
}

/**
 * Creates the per-user ceiling.
 *
 * Source: spec/platform-service.md § Limits (per-user ceiling)
 */
export function createUserRate(options: UserRateOptions): ConsumeUserRate {
  const limiter = options.limiter ?? createRateLimiter({ points: options.perMinute, durationSeconds: 60, keyPrefix: 'user-rate', redis: options.redis });
  return async (principal) => {
    const result = await limiter.consume(principal.id);
    if (result.allowed) return;
    recordRateLimitRefusal('user');
    throw new UserRateLimitedError(result.retryAfterSeconds);
  };
}
