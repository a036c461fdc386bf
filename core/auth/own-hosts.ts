/**
 * The platform's own host names, against DNS rebinding: a page of another site whose name an attacker points at
 * this server's address reaches it with its own name in Host (and Origin). The front proxy and the API answer
 * only a Host that is a loopback name (localhost, 127.0.0.1, [::1]), an IP address literal (a rebinding page
 * needs a name; this keeps `HOST=0.0.0.0 scripts/start` reachable at the machine's own addresses), or the host
 * of APP_BASE_URL or of a CORS_ALLOWED_ORIGINS entry; any port. Every name a request carries must be one: its Host,
 * and each X-Forwarded-Host entry of a trusted proxy ({@link carriesOnlyOwnHosts}); a rebinding page can add an
 * X-Forwarded-Host of ours to a same-origin request, but not change its Host.
 *
 * Source: docs/decisions.md D17 § 7 (the API answers only its own host names); spec/platform-service.md § Deployment
 * settings
 * (APP_BASE_URL, CORS_ALLOWED_ORIGINS), § Authentication rule 1.
 */
import ipaddr from 'ipaddr.js';

/**
 * The message of a refused Host (421 `misdirected_request`) at the API and semantic-mcp: what was wrong and what to
 * do, never the host name sent or a configured one (the front proxy answers the same text: proxy/Caddyfile).
 */
export const MISDIRECTED_MESSAGE = 'This server does not answer for that host name. ' +
  'Open it at its own address (APP_BASE_URL, ' +
  'a CORS_ALLOWED_ORIGINS entry, localhost or an IP address), ' +
  'or add the name to APP_BASE_URL or CORS_ALLOWED_ORIGINS.';

/** The loopback names every deployment answers on. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/**
 * Host names (lower case, no port, IPv6 without brackets) of `origins` (APP_BASE_URL, CORS_ALLOWED_ORIGINS entries);
 * entries that are no URL are skipped (the settings parser refuses them at boot).
 */
export function ownHostNames(origins: readonly string[]): string[] {
  // The request rules ask on every request with the same settings: the names are made once per list and content.
  const known = namesOfOrigins.get(origins);
  const same = known !== undefined && known.origins.length === origins.length &&
    known.origins.every((o, i) => o === origins[i]);
  if (same) return [...known.names];
  const names = hostNamesOf(origins);
  namesOfOrigins.set(origins, { origins: [...origins], names });
  return [...names];
}

/** {@link ownHostNames} per origins list, with a copy of the list's content when they were made. */
const namesOfOrigins = new WeakMap<readonly string[], { origins: readonly string[]; names: readonly string[] }>();

function hostNamesOf(origins: readonly string[]): string[] {
  const names = new Set<string>();
  for (const origin of origins) {
    try {
      names.add(stripBrackets(new URL(origin).hostname.toLowerCase()));
    } catch {
      // not a URL: never a host name of ours
    }
  }
  return [...names];
}

/**
 * The host name part of a Host header value (`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`): lower case,
 * without port or IPv6 brackets; undefined when the value is no host at all.
 */
export function hostNameOf(host: string): string | undefined {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || (end + 1 < value.length && !/^:\d*$/.test(value.slice(end + 1)))) return undefined;
    return value.slice(1, end);
  }
  const colon = value.lastIndexOf(':');
  if (colon >= 0 && !/^\d*$/.test(value.slice(colon + 1))) return undefined;
  const name = colon >= 0 ? value.slice(0, colon) : value;
  return name.length > 0 && !name.includes(':') ? name : undefined;
}

/** True for a dotted-quad IPv4 address or an IPv6 address (as written in a URL host, brackets removed). */
export function isIpLiteral(name: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(name) || (name.includes(':') && ipaddr.IPv6.isValid(name));
}

/**
 * True when `host` (a Host header value) names this platform: a loopback name, an IP literal, or one of `names`
 * ({@link ownHostNames}); any port.
 */
export function isOwnHost(host: string, names: readonly string[]): boolean {
  const name = hostNameOf(host);
  if (name === undefined) return false;
  return LOOPBACK_HOST_NAMES.includes(name) || isIpLiteral(name) || names.includes(name);
}

function stripBrackets(name: string): string {
  return name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
}

/** What {@link requestHost} reads of a request (a fetch Request has both). */
export interface HostedRequest {
  url: string;
  headers: { get(name: string): string | null };
}

/**
 * True when every host name `request` carries is one of the platform's own ({@link isOwnHost} with `names`): its Host
 * header (else its URL's host; none at all is false) and, when `forwardedHostTrusted` (the peer is a trusted proxy),
 * each non-empty entry of its X-Forwarded-Host. An untrusted peer's X-Forwarded-Host is believed for nothing, so it
 * is not asked.
 *
 * Source: docs/decisions.md D17 § 7
 */
export function carriesOnlyOwnHosts(
  request: HostedRequest,
  names: readonly string[],
  forwardedHostTrusted = false,
): boolean {
  const host = requestHost(request);
  if (host === undefined || !isOwnHost(host, names)) return false;
  if (!forwardedHostTrusted) return true;
  const forwarded = (request.headers.get('x-forwarded-host') ?? '').split(',').map((h) => h.trim());
  return forwarded.filter((h) => h.length > 0).every((h) => isOwnHost(h, names));
}

/**
 * The host a request was sent to: the first X-Forwarded-Host entry when the peer is a trusted proxy and sent one,
 * else the Host header, else the request URL's host (a Request built in process has no Host header); undefined
 * when none can be read.
 *
 * Source: spec/platform-service.md § Deployment settings (APP_BASE_URL)
 */
export function requestHost(request: HostedRequest, forwardedHostTrusted = false): string | undefined {
  const forwarded = forwardedHostTrusted ? request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  if (forwarded) return forwarded;
  const host = request.headers.get('host');
  if (host !== null) return host;
  try {
    return new URL(request.url).host || undefined;
  } catch {
    return undefined;
  }
}
