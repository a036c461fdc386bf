/**
 * Value rules of network settings: bind addresses, host:port pairs, browser origins, proxy ranges.
 * Messages name the variable (and an entry's position), never the value.
 *
 * Source: spec/platform-service.md § Deployment settings (API_HOST, CORS_ALLOWED_ORIGINS,
 * PLATFORM_WORKER_HOST, PLATFORM_WORKER_HOST_BIND, PLATFORM_TRUSTED_PROXIES).
 */
import ipaddr from 'ipaddr.js';
import { commaList, type EnvRecord, invalid, optional, url } from './env-values.ts';

const hostnamePattern =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * True when `host` is an IPv4/IPv6 address or a DNS host name.
 *
 * Source: spec/platform-service.md § Deployment settings (value rules)
 */
export function isHostName(host: string): boolean {
  return ipaddr.isValid(host) || hostnamePattern.test(host);
}

/**
 * A listening address (IP address or host name); `fallback` when unset.
 * @throws PlatformError `invalid_config` naming `name`
 *
 * Source: spec/platform-service.md § Deployment settings (API_HOST, PLATFORM_WORKER_HOST_BIND)
 */
export function bindAddress(env: EnvRecord, name: string, fallback: string): string {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (!isHostName(value)) throw invalid(name, 'must be an IP address or host name');
  return value;
}

/**
 * A `host:port` pair (`[v6]:port` for IPv6 addresses); undefined when unset.
 * @throws PlatformError `invalid_config` naming `name`
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_HOST)
 */
export function hostAndPort(env: EnvRecord, name: string): { hostname: string; port: number } | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(value);
  const hostname = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  const hostOk = hostname !== undefined &&
    (match?.[1] !== undefined ? ipaddr.IPv6.isValid(hostname) : isHostName(hostname));
  if (!hostOk || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw invalid(name, 'must be host:port (a host name or address and a port from 1 to 65535)');
  }
  return { hostname: hostname as string, port };
}

/**
 * Browser origins: comma-separated http(s) origins, entries trimmed, empty ones dropped; each returned as
 * its origin (scheme://host[:port]).
 * @throws PlatformError `invalid_config` naming `name` and the entry's position
 *
 * Source: spec/platform-service.md § Deployment settings (CORS_ALLOWED_ORIGINS)
 */
export function originList(env: EnvRecord, name: string, fallback: readonly string[]): string[] {
  return commaList(env, name, fallback).map((entry, index) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(entry);
    } catch {
      parsed = undefined;
    }
    const bare = parsed !== undefined && (parsed.pathname === '/' || parsed.pathname === '') && !parsed.search &&
      !parsed.hash && !parsed.username;
    if (!parsed || !bare || !['http:', 'https:'].includes(parsed.protocol)) {
      throw invalid(
        name,
        `entry ${index + 1} must be a browser origin such as https://app.example.com (scheme, host, optional port)`,
      );
    }
    return parsed.origin;
  });
}

/**
 * Comma-separated IP addresses or CIDR ranges, entries trimmed, empty ones dropped, kept as written.
 * @throws PlatformError `invalid_config` naming `name` and the entry's position
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_TRUSTED_PROXIES: an invalid entry stops the
 * container)
 */
export function addressRangeList(env: EnvRecord, name: string): string[] {
  return commaList(env, name).map((entry, index) => {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw invalid(name, `entry ${index + 1} is not an IP address or CIDR range`);
    return entry;
  });
}

/**
 * A URL (checked for one of `schemes`) returned exactly as written, trailing slash and all; undefined when unset.
 * @throws PlatformError `invalid_config` naming `name`
 *
 * Source: spec/platform-service.md § Deployment settings (URL rules)
 */
export function urlAsWritten(env: EnvRecord, name: string, schemes: string[] = ['http', 'https']): string | undefined {
  return url(env, name, schemes) === undefined ? undefined : optional(env, name);
}
