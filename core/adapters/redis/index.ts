/**
 * Queue store adapters on Redis (public edge of `core/adapters/redis`): the connection, the Lease and
 * the BullMQ JobQueue.
 *
 * Source: docs/architecture.md § Ports and adapters (JobQueue, Lease: Redis via BullMQ + ioredis).
 */
export { openRedis, type OpenRedisOptions, type RedisConnection } from './open-redis.ts';
export { parseRedisUrl, redactRedisTarget, type RedisTarget } from './redis-url.ts';
export { createRedisLease, type RedisLeaseOptions } from './redis-lease.ts';
export { type BullJobQueueOptions, createBullJobQueue } from './bull-job-queue.ts';
export { queuePrefix } from './bull-job-checks.ts';
export { createRedisTextDeltas } from './text-deltas.ts';
export { createStoreClock, type StoreClock, type StoreClockOptions, type TimeSource } from './store-clock.ts';
