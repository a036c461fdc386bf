/**
 * Client address of a request: the socket peer, or the X-Forwarded-For client when the peer is a
 * trusted proxy. Walks X-Forwarded-For from the right, skipping trusted proxies, so a header a client
 * sends itself can never choose its address.
 *
 * Source: docs/architecture.md § Conventions (client addresses); spec/platform-service.md
 * § Deployment settings (PLATFORM_TRUSTED_PROXIES).
 */
import ipaddr from 'ipaddr.js';
import { PlatformError } from '../ports/platform-error.ts';

/** Parsed trusted-proxy list: addresses and CIDR ranges. */
export type TrustedProxies = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

/**
 * Parses a comma-separated list of addresses or CIDR ranges (entries trimmed, empty ones dropped).
 * @throws PlatformError `invalid_config` naming the bad entry's position (never echoing other values)
 */
export function parseTrustedProxies(list: string | undefined, variable = 'PLATFORM_TRUSTED_PROXIES'): TrustedProxies {
  const entries = (list ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  return entries.map((entry, index) => {
    try {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
    } catch {
      throw new PlatformError('invalid_config', `${variable}: entry ${index + 1} is not an IP address or CIDR range.`);
    }
  });
}

/** Answers of {@link isTrusted} per trusted list (the request rules ask about the same peers on every request). */
const trustAnswers = new WeakMap<TrustedProxies, Map<string, boolean>>();
/** Most addresses remembered per list (a sender chooses its X-Forwarded-For hops); emptied when full. */
const MAX_TRUST_ANSWERS = 1024;

/** True when `address` is inside one of `trusted` (answers are remembered per list, up to 1,024 addresses). */
export function isTrusted(address: string, trusted: TrustedProxies): boolean {
  let answers = trustAnswers.get(trusted);
  if (answers === undefined) {
    answers = new Map();
    trustAnswers.set(trusted, answers);
  }
  const known = answers.get(address);
  if (known !== undefined) return known;
  const answer = insideTrusted(address, trusted);
  if (answers.size >= MAX_TRUST_ANSWERS) answers.clear();
  answers.set(address, answer);
  return answer;
}

function insideTrusted(address: string, trusted: TrustedProxies): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = normalise(ipaddr.parse(address));
  } catch {
    return false;
  }
  return trusted.some(([range, bits]) => {
    const r = normalise(range);
    return r.kind() === parsed.kind() && parsed.match(r, bits);
  });
}

/**
 * The client address of a request.
 * @param peer - socket peer address
 * @param forwardedFor - the X-Forwarded-For header value, if any
 * @param trusted - proxies whose forwarding is believed (the local front proxy is one by construction)
 */
export function clientAddress(peer: string, forwardedFor: string | null | undefined, trusted: TrustedProxies): string {
  if (!forwardedFor || !isTrusted(peer, trusted)) return peer;
  const hops = forwardedFor.split(',').map((h) => h.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    if (!isTrusted(hops[i], trusted)) return hops[i];
  }
  return hops[0] ?? peer;
}

function normalise(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}
