/**
 * The rule for owner-supplied outbound URLs (an incoming connection's OIDC issuer and JWKS URL, the `jwks_uri` its
 * discovery document names): https to a public host only, unless PLATFORM_ALLOW_PRIVATE_URLS is true (always
 * false in production). Shared by the domain (checked when an owner saves a URL) and the adapters (checked again
 * on each resolved address at connect time, against DNS rebinding).
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_ALLOW_PRIVATE_URLS, NODE_ENV); docs/decisions.md D17
 * § 6.
 */
import ipaddr from 'ipaddr.js';

/** The variable that lifts the rule; refusals name it. */
export const ALLOW_PRIVATE_URLS = 'PLATFORM_ALLOW_PRIVATE_URLS';

/** How to lift a refusal, appended to every refusal message. */
export const allowPrivateHint = `(set ${ALLOW_PRIVATE_URLS}=true to allow it outside production)`;

/**
 * True for an address on the public internet: ipaddr.js's `unicast` range (not loopback, private, link-local,
 * unique-local, carrier-grade NAT, multicast, reserved, unspecified, documentation…); an IPv4-mapped IPv6 address
 * is judged as its IPv4 address. False for anything that is not an IP address.
 *
 * Source: docs/decisions.md D17 § 6 (refuse localhost, loopback, private and link-local)
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv6' && ['6to4', 'teredo', 'rfc6052', 'rfc6145'].includes(parsed.range())) return false;
  return parsed.range() === 'unicast';
}

/** Host names that always mean this machine or its network. */
const localNames = new RegExp(
  '^(?:localhost|localhost\\.localdomain|ip6-localhost|ip6-loopback)$' +
    '|\\.(?:localhost|local|internal|home\\.arpa)$',
  'i',
);

/**
 * What is wrong with `value` as an owner-supplied outbound URL, or undefined when it may be used. With
 * `allowPrivate` any http or https URL passes. Otherwise it must be https, and its host a name (checked again
 * when it is resolved) or a public IP address; `localhost` and `.local`, `.localhost`, `.internal`, `.home.arpa`
 * names are refused. The answer is a sentence fragment naming the URL (at most 200 characters of it) and
 * PLATFORM_ALLOW_PRIVATE_URLS where that would lift it.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_ALLOW_PRIVATE_URLS); docs/decisions.md D17 § 6
 */
export function outboundUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value.slice(0, 200)}" is not a URL; give an https URL such as https://id.example.com`;
  }
  const shown = `"${value.slice(0, 200)}"`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${shown} must be an https URL`;
  if (allowPrivate) return undefined;
  if (url.protocol !== 'https:') return `${shown} must be an https URL; plain http is refused ${allowPrivateHint}`;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (localNames.test(host)) return `${shown} names a local host, which is refused ${allowPrivateHint}`;
  const literal = ipaddr.isValid(host) || /^[\d.]+$/.test(host);
  if (literal && !isPublicAddress(host)) {
    return `${shown} names a loopback, private, link-local or reserved address, which is refused ${allowPrivateHint}`;
  }
  return undefined;
}
