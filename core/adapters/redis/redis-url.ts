/**
 * The parts of a queue store URL (`redis://` or `rediss://`), and the same URL without credentials
 * for messages.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL: a rediss:// URL with
 * user and password gives TLS and an ACL user).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * What a queue store URL says.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export interface RedisTarget {
  host: string;
  port: number;
  /** True for `rediss://`. */
  tls: boolean;
  /** ACL user name, decoded; undefined for the default user. */
  username?: string;
  /** Password, decoded; undefined when the URL has none. */
  password?: string;
  /** Database index from the path (`/2`); default 0. */
  db: number;
}

/**
 * Parses `url`.
 * @throws PlatformError `invalid_config` naming QUEUE_URL (never its value) when the scheme is not
 *   redis/rediss, the host is missing or the database is not a non-negative integer
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export function parseRedisUrl(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('is not a URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw invalid('must start with redis:// or rediss://');
  }
  if (parsed.hostname === '') throw invalid('needs a host');
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d+$/.test(path)) throw invalid('may name only a database number after the host, e.g. /0');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    tls: parsed.protocol === 'rediss:',
    ...(parsed.username !== '' ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password !== '' ? { password: decodeURIComponent(parsed.password) } : {}),
    db: path === '' ? 0 : Number(path),
  };
}

/**
 * `redis://host:port/db` (or `rediss://…`) without user name or password.
 *
 * Source: spec/platform-service.md § Deployment settings (QUEUE_URL).
 */
export function redactRedisTarget(target: RedisTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `${target.tls ? 'rediss' : 'redis'}://${host}:${target.port}/${target.db}`;
}

function invalid(reason: string): PlatformError {
  return new PlatformError('invalid_config', `QUEUE_URL ${reason}.`);
}
