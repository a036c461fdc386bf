/**
 * The {@link Lease} port on Redis: one key per lease holding the owner, with a millisecond expiry.
 * Every step that reads and then writes runs as one Lua script, so two processes can never both hold
 * a lease.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease, § Data update at boot.
 */
import { checkedLeaseArgument, checkedLeaseTtlMs, type Lease } from '../../ports/lease.ts';
import type { RedisConnection } from './open-redis.ts';

/** SET NX PX; or, when the caller already holds it, a new expiry. Returns 1 when ARGV[1] holds the lease. */
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

/** Compare-and-renew: a new expiry only while ARGV[1] holds the lease. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Compare-and-delete: removes the lease only while ARGV[1] holds it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Options of {@link createRedisLease}.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease.
 */
export interface RedisLeaseOptions {
  /** Prefix of the lease keys; default `cairn:lease:` (the lease `dispatcher` lives at `cairn:lease:dispatcher`). */
  keyPrefix?: string;
}

/**
 * A lease store on `redis` (not closed by it: the caller owns the connection).
 *
 * `acquire` by the current holder succeeds and restarts its time to lapse. Expiry is Redis's own
 * (PX), so a holder that stops renewing loses the lease `ttlMs` after its last acquire or renew.
 *
 * @throws (from its methods) PlatformError `invalid_argument` (400) for an empty name or owner, or a
 *   ttlMs that is not a positive number; the client's error when Redis fails
 *
 * Source: spec/platform-service.md § Single-dispatcher lease.
 */
export function createRedisLease(redis: RedisConnection, options: RedisLeaseOptions = {}): Lease {
  const prefix = options.keyPrefix ?? 'cairn:lease:';
  const key = (name: string) => `${prefix}${checkedLeaseArgument('name', name)}`;
  const run = async (script: string, name: string, owner: string, ...args: string[]) =>
    Number(await redis.eval(script, 1, key(name), checkedLeaseArgument('owner', owner), ...args));
  return {
    async acquire(name, owner, ttlMs) {
      return (await run(ACQUIRE, name, owner, String(checkedLeaseTtlMs(ttlMs)))) === 1;
    },
    async renew(name, owner, ttlMs) {
      return (await run(RENEW, name, owner, String(checkedLeaseTtlMs(ttlMs)))) === 1;
    },
    async release(name, owner) {
      await run(RELEASE, name, owner);
    },
    async holder(name) {
      return redis.get(key(name));
    },
  };
}
