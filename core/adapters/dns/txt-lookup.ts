/**
 * The {@link TxtLookup} port over `node:dns/promises` (Node, Bun and Deno): the system's resolvers, or
 * the `servers` given (`host` or `host:port`, e.g. a loopback DNS server in tests).
 *
 * Source: spec/platform-service.md § Authentication rule 5 (TXT record verification, read by the API
 * over outbound DNS).
 */
import { Resolver } from 'node:dns/promises';
import { PlatformError } from '../../ports/platform-error.ts';
import type { TxtLookup } from '../../ports/txt-lookup.ts';

/** DNS answers that mean "no such record" rather than "the lookup failed". */
const absent = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

/**
 * A TXT lookup.
 * @param options.servers - resolvers to ask instead of the system's (default: the system's)
 * @param options.timeoutMs - per-try timeout in milliseconds (default 5000), 2 tries
 */
export function createTxtLookup(options: { servers?: string[]; timeoutMs?: number } = {}): TxtLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 5000, tries: 2 });
  if (options.servers?.length) resolver.setServers(options.servers);
  return {
    async txtRecords(name) {
      try {
        return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'EUNKNOWN';
        if (absent.has(code)) return [];
        throw new PlatformError('dns_failed', `The DNS lookup of ${name} failed (${code}); try again in a minute.`, {
          status: 502,
        });
      }
    },
  };
}
