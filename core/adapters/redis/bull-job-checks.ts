/**
 * The checks of a BullMQ job queue's names and connection: queue names and job ids BullMQ can hold (it reserves `:`
 * and integer ids), a connection that blocks safely, and the key prefix on a cluster.
 *
 * Source: core/ports/job-queue.ts; docs/architecture.md § Ports and adapters (JobQueue: Redis via BullMQ + ioredis).
 */
import { Cluster } from 'ioredis';
import { PlatformError } from '../../ports/platform-error.ts';
import type { RedisConnection } from './open-redis.ts';

/**
 * The BullMQ prefix: on a cluster every key of a queue must share one hash slot.
 *
 * Source: core/ports/job-queue.ts; docs/architecture.md § Ports and adapters (JobQueue).
 */
export function queuePrefix(prefix: string, cluster: boolean): string {
  return cluster && !prefix.includes('{') ? `{${prefix}}` : prefix;
}

/**
 * Refuses a shared connection without `maxRetriesPerRequest: null` (BullMQ's blocking commands need it).
 * @throws PlatformError `invalid_argument` (400)
 */
export function assertBlockingSafe(connection: RedisConnection): void {
  const options = connection instanceof Cluster ? connection.options.redisOptions : connection.options;
  if (options?.maxRetriesPerRequest !== null) {
    throw new PlatformError(
      'invalid_argument',
      'The queue connection needs maxRetriesPerRequest: null (openRedis sets it by default).',
      { status: 400 },
    );
  }
}

/**
 * `name` when it is a queue name BullMQ can hold: non-empty, without `:`.
 * @throws PlatformError `invalid_argument` (400)
 */
export function checkedQueueName(name: string): string {
  if (name.length === 0 || name.includes(':')) {
    throw new PlatformError(
      'invalid_argument',
      `The queue name ${JSON.stringify(name)} must be non-empty and hold no ':'.`,
      { status: 400 },
    );
  }
  return name;
}

/**
 * `jobId` when BullMQ can hold it: non-empty, without `:`, not an integer. @throws PlatformError `invalid_argument`
 * (400)
 */
export function checkedJobId(jobId: string): string {
  if (jobId.length === 0 || jobId.includes(':') || String(Number.parseInt(jobId, 10)) === jobId) {
    throw new PlatformError(
      'invalid_argument',
      `The jobId ${JSON.stringify(jobId)} must be non-empty, hold no ':' and not be an integer.`,
      { status: 400 },
    );
  }
  return jobId;
}
