/**
 * The webhook endpoint `POST /api/webhooks/<address>`: an address that serves no webhook connection, or whose
 * connection no webhook trigger of the published build names, is 404 (two triggers naming it: 503); the
 * caller is admitted by the connection's mode (public, bearer, oidc; a webhook reads no platform sign-in); calls per
 * minute per caller and per endpoint are counted in the shared queue store (429 with Retry-After); the delivery id
 * (`X-Delivery-Id`, else the body's digest) is claimed once by a unique insert, so a retry, even 25 concurrent
 * retries, fires once. A delivery whose session key the dispatcher would refuse is answered 400 before the claim.
 * The claim holds the `webhook` job (job id from agent, environment, connection and delivery id) until it is on the
 * trigger queue, so a crash between the claim and the add is finished by the dispatchers' resume sweep
 * (core/session/delivery-claims.ts); the answer is `202 {delivery}` once the job is queued. A dispatcher opens the
 * session (core/trigger/webhook-firings.ts), once per delivery however often its job runs.
 *
 * Source: spec/platform-service.md § Endpoints, § Webhook firing payload, § Incoming connection authentication,
 * § Errors (404, 429), § Limits (256 KiB; 600 per caller, 600 per endpoint); docs/decisions.md D8 § Endpoints
 * (webhook).
 */
import { Elysia } from 'elysia';
import type { RedisConnection } from '../../core/adapters/redis/open-redis.ts';
import { WEBHOOK_FIRING_QUEUE } from '../../core/trigger/webhook-firings.ts';
import {
  webhookJobIdOf, webhookSessionKeyOf, webhookTriggerOf, type WebhookDelivery,
} from '../../core/trigger/webhook-firings.ts';
import type { TriggerDeclaration } from '../../core/agent/trigger-model.ts';
import type { publishedWorkflows } from '../../core/session/build-workflows.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { admitCaller, type AdmissionDeps, type ConnectionRecord } from '../../core/connection/index.ts';
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { claimDelivery, releaseDelivery } from '../../core/session/delivery-claims.ts';
import { checkSessionKey } from '../../core/session/session-key-claims.ts';
import { cachedConnections } from './connection-cache.ts';
import { activeTraceCarrier, type TraceCarrier } from '../../core/telemetry/trace-context.ts';

const traceOf = (trace: TraceCarrier | undefined) => (trace ? { trace } : {});
import { endpointLimiters, endpointNotFound } from './endpoint-rate.ts';
import { countEndpointCall } from '../../core/connection/endpoint-calls.ts';
import { errorToResponse, json, readBody } from './http-helpers.ts';
import { deliveryIdOf, webhookPayload } from './webhook-payload.ts';
import { recordWebhookDelivery } from '../../core/telemetry/instruments.ts';

/** Largest webhook body (256 KiB). Source: spec § Limits. */
const maxWebhookBytes = 256 * 1024;

/** What the webhook endpoint needs. */
export interface WebhookRouteDeps {
  docs: DocumentStore;
  clock: Clock;
  admission: AdmissionDeps;
  /** The trigger queue (absent without a queue store: the endpoint answers 503). */
  queue?: JobQueue;
  /** The published builds (which webhook trigger names the connection). */
  builds: ReturnType<typeof publishedWorkflows>;
  /** Counters live here when given (the shared queue store), else in this process. */
  rateRedis?: RedisConnection;
  /** The client address of a request (the request rules' view, trusted proxies applied). */
  clientAddress(request: Request): string | undefined;
  logger: Logger;
}

/** How long one process reuses what it found a connection serves (ms): a publish reaches the check within this. */
export const SERVED_CHECK_MS = 1_000;

type Served = 'served' | 'not_served' | 'conflict';
/** What a connection serves, with its webhook trigger when served (its session key is checked before the claim). */
interface ServedCheck { served: Served; trigger?: TriggerDeclaration }

/**
 * What a connection serves, read at most once per {@link SERVED_CHECK_MS} per process (the firing itself reads the
 * build published when it runs): nothing published or no webhook trigger naming it, one, or two or more.
 */
function servedChecks(
  deps: Pick<WebhookRouteDeps, 'docs' | 'builds'>,
): (connection: ConnectionRecord) => Promise<ServedCheck> {
  const seen = new Map<string, { until: number; check: ServedCheck }>();
  return async (connection) => {
    const now = Date.now();
    const hit = seen.get(connection._id);
    if (hit && hit.until > now) return hit.check;
    let served: Served = 'served';
    let trigger: TriggerDeclaration | undefined;
    try {
      const { agentId, environment, identifier } = connection;
      const ref = { agentId, environment, connection: identifier };
      trigger = (await webhookTriggerOf(deps, ref, 'nothing was taken')).trigger;
    } catch (error) {
      if (isPlatformError(error, 'not_published') || isPlatformError(error, 'trigger_not_found')) served = 'not_served';
      else if (isPlatformError(error, 'connection_conflict')) served = 'conflict';
      else throw error;
    }
    if (seen.size > 10_000) seen.clear();
    const check = { served, ...(trigger ? { trigger } : {}) };
    seen.set(connection._id, { until: now + SERVED_CHECK_MS, check });
    return check;
  };
}

/**
 * Nothing served: 404; two triggers naming the connection: 503 (the deployment is in error; the sender's retry is
 * taken once it is fixed). Undefined when it is served.
 */
function refusalOf(served: Served): Response | undefined {
  if (served === 'not_served') return endpointNotFound();
  if (served === 'conflict') {
    return json({ error: { code: 'deployment_error', message: 'This endpoint\'s deployment is in error (its connection is named by more than one trigger), so nothing was taken; retry once its maintainers fixed it (they see why on the Connections page).' } }, 503);
  }
  return undefined;
}

/**
 * A delivery whose session key the dispatcher would refuse (over 256 characters, blank) is answered 400 before
 * anything is claimed or queued; undefined when its key is fine or its trigger keys no sessions.
 */
function sessionKeyRefusal(trigger: TriggerDeclaration | undefined, delivery: WebhookDelivery): Response | undefined {
  if (!trigger) return undefined;
  try {
    const key = webhookSessionKeyOf(trigger, delivery);
    if (key !== undefined) checkSessionKey(key);
    return undefined;
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    const message = 'Nothing was taken: the session key this delivery gives (by the session expression of trigger '
      + `"${trigger.id}") is refused. ${error.message}`;
    return json({ error: { code: error.code, message } }, 400);
  }
}

/** Mounts the endpoint. */
export function webhookRoutes(deps: WebhookRouteDeps) {
  const rates = { endpointRates: endpointLimiters(deps.rateRedis) };
  const servedOf = servedChecks(deps);
  // The record is reused up to CONNECTION_CACHE_MS (1 s): a deleted or changed connection is seen within that.
  const connectionOf = cachedConnections(deps);
  const deliver = async (request: Request, address: string): Promise<Response> => {
    try {
      const connection = await connectionOf(address);
      if (!connection || connection.protocol !== 'webhook') return endpointNotFound();
      const admission = await admitCaller(deps.admission, connection, {
        authorization: request.headers.get('authorization') ?? undefined, origin: request.headers.get('origin') ?? undefined, clientAddress: deps.clientAddress(request),
      });
      if (!admission.admitted) return json({ error: { code: admission.code, message: admission.message } }, admission.status);
      const served = await servedOf(connection);
      const refused = refusalOf(served.served);
      if (refused) return refused;
      const limited = await countEndpointCall(rates, connection, admission.caller.rateKey).catch((error: unknown) => error);
      if (limited) return errorToResponse(limited, deps.logger);
      if (!deps.queue) return json({ error: { code: 'queue_unavailable', message: 'No queue store is configured (QUEUE_URL), so no delivery can be taken.' } }, 503);
      const body = await readBody(request, maxWebhookBytes);
      const deliveryId = deliveryIdOf(request, body);
      const delivery: WebhookDelivery = {
        agentId: connection.agentId, environment: connection.environment, connection: connection.identifier, deliveryId,
        claimScope: connection._id, payload: webhookPayload(request, body),
        // The request's span (./inbound-spans.ts), carried to the dispatcher's firing (docs/decisions.md D25 § 1).
        ...traceOf(activeTraceCarrier()),
      };
      const keyRefused = sessionKeyRefusal(served.trigger, delivery);
      if (keyRefused) return keyRefused;
      // The claim holds the job (one insert): a process stopped before the add leaves it to the resume sweep.
      const jobId = await webhookJobIdOf(deps.admission.ids, delivery);
      // On the fair firing queue, in its organization's and agent's place (docs/decisions.md D24 § 1).
      const place = { lane: 'background' as const, tenant: connection.orgId, group: connection.agentId };
      const job = { queue: WEBHOOK_FIRING_QUEUE, name: 'webhook', jobId, data: delivery, place };
      if (!(await claimDelivery(deps, connection._id, deliveryId, { job }))) {
        return duplicate(json({ delivery: deliveryId, duplicate: true }, 202));
      }
      try {
        await deps.queue.add(job.queue, job.name, job.data, { jobId: job.jobId, place });
      } catch (error) {
        // Not taken: release the claim so the sender's retry is taken (a claim left behind is queued by the sweep).
        await releaseDelivery(deps, connection._id, deliveryId).catch(() => undefined);
        deps.logger.error({ err: (error as Error).message }, 'webhook delivery not queued');
        const message = 'The queue store did not take this delivery, so nothing was taken; send it again later.';
        return json({ error: { code: 'queue_unavailable', message } }, 503);
      }
      // The claim stays pending until the dispatcher has opened the session (it settles it): one write here, and a
      // job the queue store loses is added again by the resume sweep.
      return json({ delivery: deliveryId }, 202);
    } catch (error) {
      return errorToResponse(error, deps.logger);
    }
  };
  return new Elysia().post('/api/webhooks/:address', async ({ request, params }) => {
    const response = await deliver(request, params.address);
    recordWebhookDelivery(await outcomeOf(response));
    return response;
  }, { parse: 'none' });
}

/** The answers of duplicate deliveries (acknowledged, nothing new taken). */
const duplicates = new WeakSet<Response>();
const duplicate = (response: Response) => (duplicates.add(response), response);

/**
 * The outcome `cairn.webhook.deliveries` counts (docs/decisions.md D25 § 2): `accepted`, `duplicate`, or the
 * refusal's code read from its small JSON answer.
 */
async function outcomeOf(response: Response): Promise<string> {
  if (response.status === 202) return duplicates.has(response) ? 'duplicate' : 'accepted';
  const body = await response.clone().json().catch(() => undefined) as { error?: { code?: string } } | undefined;
  return body?.error?.code ?? `status_${response.status}`;
}
