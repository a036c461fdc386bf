/**
 * A fetch for owner-supplied URLs that holds the outbound URL rule at connect time: the URL is checked as saved
 * (https, no local name or private address literal), then every address its host resolves to must be public, and
 * the connection is made to the address that was checked (undici's connector with a custom lookup step), so a
 * name that resolves publicly once and privately the next time (DNS rebinding) cannot reach the private
 * address. Redirects are checked the same way (each hop connects through the same connector).
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_ALLOW_PRIVATE_URLS); docs/decisions.md D17 § 6.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { allowPrivateHint, isPublicAddress, outboundUrlProblem } from '../../ports/outbound-url.ts';

/** A fetch function (the shape jose and the discovery reader take). */
export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Options of {@link createGuardedFetch}. */
export interface GuardedFetchOptions {
  /** PLATFORM_ALLOW_PRIVATE_URLS (effective): true answers the plain global fetch, unguarded. Default false. */
  allowPrivate?: boolean;
  /** Resolves a host name to every address (default the system resolver, `dns.lookup` with `all`). */
  lookup?: (host: string) => Promise<ResolvedAddress[]>;
  /** Longest wait for a connection, ms (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * The refusal of an outbound URL or address; its message names PLATFORM_ALLOW_PRIVATE_URLS.
 *
 * Source: docs/decisions.md D17 § 6 (the message names the variable)
 */
export class OutboundUrlRefusedError extends Error {
  readonly code = 'outbound_url_refused';
}

const systemLookup = async (host: string): Promise<ResolvedAddress[]> => dnsLookup(host, { all: true, verbatim: true });

/**
 * Creates the guarded fetch.
 * @returns a fetch that rejects with {@link OutboundUrlRefusedError} (directly, or as the `cause` of undici's
 *   `TypeError: fetch failed`) for a refused URL or resolved address
 *
 * Source: docs/decisions.md D17 § 6 (check the resolved address at connect time too)
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  if (options.allowPrivate) return (input, init) => fetch(input, init);
  const lookup = options.lookup ?? systemLookup;
  const connect = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  const dispatcher = new Agent({
    connect: (connectOptions, callback) => {
      const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
      resolvePublic(host, lookup).then(
        (address) => {
          const servername = connectOptions.servername ?? (isIp(host) ? undefined : host);
          connect({ ...connectOptions, hostname: address, servername } as typeof connectOptions, callback);
        },
        (error: Error) => callback(error, null),
      );
    },
  });
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const problem = outboundUrlProblem(url, false);
    if (problem) throw new OutboundUrlRefusedError(`${problem}.`);
    const options = { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1];
    return await undiciFetch(url, options) as unknown as Response;
  };
}

/** The first address of `host` when every address it resolves to is public. @throws OutboundUrlRefusedError */
async function resolvePublic(host: string, lookup: (host: string) => Promise<ResolvedAddress[]>): Promise<string> {
  const addresses = isIp(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await lookup(host);
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused || addresses.length === 0) {
    const shown = host.slice(0, 200);
    throw new OutboundUrlRefusedError(
      `The host "${shown}" resolves to a loopback, private, link-local or reserved address, ` +
        `which is refused ${allowPrivateHint}.`,
    );
  }
  return addresses[0].address;
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
