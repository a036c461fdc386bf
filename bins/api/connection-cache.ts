/**
 * The connection an endpoint address serves, read from the document store at most once per
 * {@link CONNECTION_CACHE_MS} per address and process: a webhook burst reads the record once a second instead of
 * once per delivery. A change to the connection (deleted, its token regenerated, its authentication changed)
 * reaches the endpoint within {@link CONNECTION_CACHE_MS}, the same bound as what a connection serves
 * (webhook-routes.ts `SERVED_CHECK_MS`). An unknown address is not remembered (it is read each time), so a
 * connection created again under its kept address answers at once, and guessed addresses fill nothing.
 *
 * Source: spec/platform-service.md § Endpoints, § Incoming connection authentication; docs/endpoints.md.
 */
import { connectionByAddress, type ConnectionRecord } from '../../core/connection/index.ts';
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';

/** How long one process reuses a connection record it read (ms). */
export const CONNECTION_CACHE_MS = 1_000;

/** Most addresses remembered at once; the map is emptied when it would grow past this. */
const MAX_CACHED = 10_000;

/**
 * A look-up of the connection an address serves, cached per address for {@link CONNECTION_CACHE_MS} of `clock`.
 * @returns the record, or null when no connection has the address (never cached)
 */
export function cachedConnections(
  deps: { docs: DocumentStore; clock: Clock },
): (address: string) => Promise<ConnectionRecord | null> {
  const seen = new Map<string, { until: number; record: ConnectionRecord }>();
  return async (address) => {
    const now = deps.clock.now().getTime();
    const hit = seen.get(address);
    if (hit && hit.until > now) return hit.record;
    const record = await connectionByAddress(deps, address);
    if (!record) {
      seen.delete(address);
      return null;
    }
    if (seen.size >= MAX_CACHED) seen.clear();
    seen.set(address, { until: now + CONNECTION_CACHE_MS, record });
    return record;
  };
}
