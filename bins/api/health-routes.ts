/**
 * Health routes: /api/health answers before any database access; /api/health/ready (behind /healthz)
 * answers 503 while this container's dispatcher lacks the single-dispatcher lease (embedded queue store).
 *
 * Source: spec/platform-service.md § Endpoints (/api/health, /healthz), § Errors.
 */
import { Elysia } from 'elysia';
import type { Lease } from '../../core/ports/lease.ts';
import { dispatcherLeaseName } from '../../core/lease/dispatcher-lease.ts';
import { queryRule } from './query-params.ts';

/** Options: the version, and with an embedded queue store the lease and this container's id. */
export interface HealthOptions {
  version: string;
  embeddedQueue?: { lease: Lease; instanceId: string };
}

/** The health plugin. Its routes take no query parameters (400 for any). */
export function healthRoutes(options: HealthOptions) {
  const ok = { status: 'ok', version: options.version };
  return new Elysia()
    .onBeforeHandle(queryRule())
    .get('/api/health', () => ok)
    .get('/api/health/ready', async () => {
      if (!options.embeddedQueue) return ok;
      const holder = await options.embeddedQueue.lease.holder(dispatcherLeaseName);
      if (holder === options.embeddedQueue.instanceId) return ok;
      return new Response(JSON.stringify({ status: 'waiting for the single-dispatcher lease', version: options.version }), { status: 503, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
    });
}
