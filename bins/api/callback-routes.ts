/**
 * The callback endpoint `/api/callbacks/<address>` (GET, HEAD, POST, PUT, PATCH, DELETE): an address that serves no
 * published callback trigger is 404; a body over 256 KiB is 413 (the request rules refuse it by Content-Length, the
 * read below refuses a longer stream). A service's check (GET, HEAD) is handed to the collection at once: its
 * `callback` tool gets `{event, request}` and the request is answered with the `response` it gives (200 with an empty
 * body when it gives none; 502 when the collection cannot be reached or its answer cannot be read). Any other method
 * is answered `202 {delivery}` at once (X-Delivery-Id, else the body's digest) and run off the request on a
 * dispatcher, in a call worker (core/trigger/callback-runs.ts); a retry of the same delivery is one job and its firings
 * fire once.
 *
 * The check is called from this process through the tool catalog (the broker's side of a call worker would make the
 * same call; no worker is started for the synchronous answer). Firings a collection returns for a check are ignored.
 *
 * Calls are counted per address before anything else (a webhook's calls per minute, {@link callbackRates}): over
 * them the answer is 429 with Retry-After.
 *
 * Source: spec/platform-service.md § Endpoints (/api/callbacks/<token>), § Limits (256 KiB; calls per minute),
 * § Errors (404 for an address that serves nothing; 429 with a retry time); docs/decisions.md D8 (callback triggers);
 * docs/decisions.md D17 § 6.
 */
import { Elysia } from 'elysia';
import { createServiceCatalog, type ServiceCatalog } from '../../core/adapters/mcp-services/index.ts';
import { callbackCall, callbackTargetOf, type CallbackDelivery, type CallbackRequest } from '../../core/trigger/callback-runs.ts';
import { TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import type { publishedWorkflows } from '../../core/session/build-workflows.ts';
import type { ServiceConfig } from '../../core/config/config-model.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { Ids } from '../../core/ports/ids.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { isPlatformError, PlatformError } from '../../core/ports/platform-error.ts';
import { callbackAnswer } from '../../core/trigger/callback-answer.ts';
import type { RedisConnection } from '../../core/adapters/redis/open-redis.ts';
import { defaultRates } from '../../core/connection/index.ts';
import { endpointLimiters, endpointNotFound } from './endpoint-rate.ts';
import { countEndpointCall } from '../../core/connection/endpoint-calls.ts';
import { errorToResponse, json, readBody } from './http-helpers.ts';
import { deliveryIdOf, webhookPayload } from './webhook-payload.ts';

/** Largest callback body (256 KiB). Source: spec § Limits. */
const maxCallbackBytes = 256 * 1024;

/** What the callback endpoint needs. */
export interface CallbackRouteDeps {
  docs: DocumentStore;
  ids: Ids;
  builds: ReturnType<typeof publishedWorkflows>;
  /** The config's services: the catalog answering checks is made from them on the first check. */
  services: ServiceConfig[];
  /** The trigger queue (absent without a queue store: deliveries answer 503). */
  queue?: JobQueue;
  /** Receives `[services] …` lines of the catalog. */
  print(line: string): void;
  logger: Logger;
  /** The queue store the calls per minute are counted in (shared by replicas); omitted counts in this process. */
  rateRedis?: RedisConnection;
  /** The client address the request rules resolved (socket peer, or the client a trusted proxy names). */
  clientAddress?(request: Request): string | undefined;
}

/**
 * Calls per minute of one callback address: a webhook's defaults (600 per caller, 600 per endpoint), counted
 * per address before it is looked up, so an address that serves nothing is limited like one that does.
 *
 * Source: spec/platform-service.md § Limits (webhook default calls per minute); docs/decisions.md D17 § 6 (callbacks
 * get the
 * per-endpoint limit)
 */
export const callbackRates = defaultRates.webhook;

/** The request as the collection is handed it (the webhook firing payload's fields, headers by name). */
function callbackRequest(request: Request, body: Uint8Array): CallbackRequest {
  const payload = webhookPayload(request, body);
  return {
    method: payload.method,
    headers: { 'content-type': payload.contentType, 'user-agent': payload.userAgent, 'x-request-id': payload.requestId },
    query: payload.query, body: payload.body,
  };
}

/** Mounts the endpoint. */
export function callbackRoutes(deps: CallbackRouteDeps) {
  let catalog: ServiceCatalog | undefined;
  const catalogOf = () => (catalog ??= createServiceCatalog({ services: deps.services, log: deps.print, retryAfterMs: 5_000 }));
  const rates = { endpointRates: endpointLimiters(deps.rateRedis) };
  const handle = async (request: Request, address: string): Promise<Response> => {
    try {
      const endpoint = { _id: `callback:${address.slice(0, 100)}`, rate: callbackRates };
      const limited = await countEndpointCall(rates, endpoint, deps.clientAddress?.(request) ?? '-').catch((error: unknown) => error);
      if (limited) return errorToResponse(limited, deps.logger);
      const target = await callbackTargetOf(deps, address);
      if (!target) return endpointNotFound();
      const body = await readBody(request, maxCallbackBytes);
      const call = callbackCall(target, callbackRequest(request, body));
      if (request.method === 'GET' || request.method === 'HEAD') {
        const result = await catalogOf().call(call.collection, call.tool, call.input).catch((error: unknown) => {
          // A collection no service offers (or without a callback tool) is the service side's fault, not an unknown address.
          if (isPlatformError(error, 'tool_not_found')) throw new PlatformError('callback_failed', `The check could not be handed to the collection: ${error.message}`, { status: 502 });
          throw error;
        });
        if (result.isError) throw new PlatformError('callback_failed', `The ${call.collection} collection could not answer the check: ${String(result.output)}`, { status: 502 });
        let answer;
        try { answer = callbackAnswer(result.output); } catch (error) { throw new PlatformError('callback_failed', (error as Error).message, { status: 502 }); }
        const response = answer.response ?? { status: 200, body: '', contentType: 'text/plain; charset=utf-8' };
        return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: { 'content-type': response.contentType, 'cache-control': 'no-store' } });
      }
      if (!deps.queue) return json({ error: { code: 'queue_unavailable', message: 'No queue store is configured (QUEUE_URL), so no callback can be taken.' } }, 503);
      const deliveryId = deliveryIdOf(request, body);
      const delivery: CallbackDelivery = { address, deliveryId, request: call.input.request as unknown as CallbackRequest };
      await deps.queue.add(TRIGGER_QUEUE, 'callback', delivery, { jobId: `callback-${(await deps.ids.sha256Hex(`${address}\n${deliveryId}`)).slice(0, 40)}` });
      return json({ delivery: deliveryId }, 202);
    } catch (error) {
      return errorToResponse(error, deps.logger);
    }
  };
  const app = new Elysia();
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    app.route(method, '/api/callbacks/:address', ({ request, params }) => handle(request, params.address), { parse: 'none' });
  }
  return app;
}
