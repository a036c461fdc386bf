/**
 * Opens the queue store (Redis) named by QUEUE_URL: plain or TLS, default or ACL user, single server or
 * cluster (detected from the server, not configured).
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL);
 * docs/architecture.md § Processes (Redis or a Redis cluster; embedded redis-server when QUEUE_URL unset).
 */
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { PlatformError } from '../../ports/platform-error.ts';
import { parseRedisUrl, redactRedisTarget, type RedisTarget } from './redis-url.ts';

/**
 * A connection to the queue store: one server or a cluster.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export type RedisConnection = Redis | Cluster;

/**
 * Options of {@link openRedis}.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export interface OpenRedisOptions {
  /** TLS options merged into `rediss://` connections (e.g. `ca` for a private CA); default Node's trust store. */
  tls?: ConnectionOptions;
  /** How long to wait for the server to answer, in ms; default 10 000. */
  connectTimeoutMs?: number;
  /**
   * ioredis `maxRetriesPerRequest`; default null: commands wait for a reconnection instead of failing
   * after 20 attempts. BullMQ refuses a connection with any other value.
   */
  maxRetriesPerRequest?: number | null;
}

/**
 * Connects to `url`, checks that the server answers commands (authentication included), and runs
 * `INFO cluster`: with `cluster_enabled:1` it returns an ioredis `Cluster` seeded with that address
 * (same user, password and TLS for every node; on TLS, node addresses are used as announced and
 * certificates are checked against the URL's host), else the single-server client.
 *
 * The returned client has no `error` listener of its own: attach one (ioredis otherwise prints
 * errors to stderr) and call `quit()` to close it.
 *
 * @param url - `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS)
 * @throws PlatformError `invalid_config` for a malformed URL; `store_unreachable` (503) when the server
 *   cannot be reached, refuses the credentials (or needs some) or does not answer in time. Messages
 *   name the host and port, never the user name or password.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<RedisConnection> {
  const target = parseRedisUrl(url);
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  const base = connectionOptions(target, options);
  const probe = new Redis({ ...base, host: target.host, port: target.port, db: target.db, lazyConnect: true });
  const clusterInfo = await ready(probe, target, timeoutMs, () => probe.info('cluster'));
  if (!/^cluster_enabled:1\s*$/m.test(clusterInfo)) return probe;
  probe.disconnect();
  const cluster = new Cluster([{ host: target.host, port: target.port }], {
    redisOptions: base,
    lazyConnect: true,
    // Keep announced node addresses as they are: TLS still checks them against the URL's host (servername).
    dnsLookup: (address, callback) => callback(null, address),
  });
  await ready(cluster, target, timeoutMs, () => cluster.cluster('INFO') as Promise<string>);
  return cluster;
}

/** Client options shared by the probe and every cluster node. */
function connectionOptions(target: RedisTarget, options: OpenRedisOptions): RedisOptions {
  return {
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { tls: { servername: target.host, ...options.tls } } : {}),
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? null : options.maxRetriesPerRequest,
  };
}

/**
 * Connects `client` and runs `check`; on any failure disconnects it (stopping its reconnection loop)
 * and throws `store_unreachable` with the reason the client reported.
 */
async function ready<T>(
  client: RedisConnection,
  target: RedisTarget,
  timeoutMs: number,
  check: () => Promise<T>,
): Promise<T> {
  let lastError: Error | undefined;
  const track = (error: Error) => {
    lastError = error;
  };
  client.on('error', track);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([client.connect().then(check), timeout]);
  } catch (error) {
    client.disconnect();
    throw unreachable(target, lastError ?? (error as Error));
  } finally {
    clearTimeout(timer);
    client.off('error', track);
  }
}

function unreachable(target: RedisTarget, error: Error): PlatformError {
  // Redis does not echo credentials in its errors; removing the password anyway costs nothing.
  const text = error?.message ?? String(error);
  const reason = target.password ? text.split(target.password).join('***') : text;
  return new PlatformError(
    'store_unreachable',
    `QUEUE_URL: cannot use the queue store at ${redactRedisTarget(target)}: ${reason}`,
    { status: 503 },
  );
}
