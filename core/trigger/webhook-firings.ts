/**
 * Webhook firings, run by a dispatcher from the trigger queue: the delivery an endpoint acknowledged opens a session
 * of the workflow whose webhook trigger names the connection, on the environment's current published build. Two
 * triggers naming one webhook connection fire neither (the deployment error names the connection and workflows).
 *
 * A trigger with a `session` key expression sends deliveries with one key to one open session; a delivery whose
 * session is busy (running, awaiting a decision) is queued again with a growing delay ({@link runWebhookJob}), at most
 * {@link WEBHOOK_BUSY_ATTEMPTS} times, then dropped with a log line naming the trigger and the key.
 *
 * Source: spec/platform-service.md § Webhook firing payload, § Trigger declarations (two triggers naming one AG-UI or
 * webhook connection both fail), § Firings; docs/agent-format.md § Triggers (webhook: `session`);
 * docs/decisions.md D8 § Endpoints (webhook: processed off the request).
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { sessionKeyOf } from '../agent/session-key-expression.ts';
import type { Firing, FiringDeps, FiringTarget } from '../session/firings.ts';
import { openFiredSession } from '../session/session-opening.ts';
import { settleDelivery } from '../session/delivery-claims.ts';
import { TRIGGER_QUEUE } from './completion-firings.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { TraceCarrier } from '../telemetry/trace-context.ts';
import { inQueueSpan } from '../telemetry/queue-spans.ts';

/**
 * The queue a webhook delivery's firing waits on when the endpoint acknowledges it: fair (core/adapters/redis/
 * fair-queue.ts), in the background lane of its organization and agent, so one organization's burst of deliveries
 * does not hold another's; its busy retries go to the trigger queue with their delay. Every dispatcher consumes it
 * with the trigger queue's handler. Source: docs/decisions.md D24 § 1.
 */
export const WEBHOOK_FIRING_QUEUE = 'webhook-firings';
import type { TriggerDeclaration } from '../agent/trigger-model.ts';
import { publishedEnvironment, type PublishedEnvironmentRecord } from '../session/published-environment.ts';

/** The payload of a webhook firing. Source: spec § Webhook firing payload. */
export interface WebhookPayload {
  method: string;
  contentType: string | null;
  userAgent: string | null;
  requestId: string | null;
  query: Record<string, string | string[]>;
  /** Parsed when JSON; else the text. */
  body: unknown;
}

/**
 * A delivery the endpoint acknowledged (a `webhook` job of the trigger queue). `claimScope` is the scope of its claim
 * in `trigger_deliveries` (the connection's id), settled once the delivery has opened or reached its session.
 */
export interface WebhookDelivery {
  agentId: string;
  environment: string;
  connection: string;
  deliveryId: string;
  payload: WebhookPayload;
  claimScope?: string;
  /**
   * The W3C trace context of the request that acknowledged it (absent when no trace was recorded): the firing runs in
   * a span of that trace, so the session's first turn continues the sender's trace. Source: docs/decisions.md D25.
   */
  trace?: TraceCarrier;
}

/** What a webhook firing needs: the stores, the turn queue and the published builds. */
export type WebhookFiringDeps = FiringDeps & { builds: ReturnType<typeof publishedWorkflows> };

/**
 * The webhook trigger a connection serves on its environment's published build (the endpoint asks before it
 * acknowledges a delivery; the dispatcher again when it fires it, on the build published then).
 * @param outcome - what the refusal messages say did not happen
 * @throws PlatformError `not_published` (nothing published), `trigger_not_found` (no webhook trigger names the
 *   connection), `connection_conflict` (more than one does; names the workflows and triggers)
 */
export async function webhookTriggerOf(
  deps: Pick<WebhookFiringDeps, 'docs' | 'builds'>,
  ref: { agentId: string; environment: string; connection: string },
  outcome: string,
): Promise<{ env: PublishedEnvironmentRecord; trigger: TriggerDeclaration }> {
  const published = await publishedEnvironment(deps, ref.agentId, ref.environment);
  if (!published) {
    throw new PlatformError('not_published', `Environment "${ref.environment}" has nothing published; ${outcome}.`);
  }
  const { env, agent } = published;
  const triggers = Object.values(agent.workflows).flatMap((w) => w.triggers).filter((t) =>
    t.type === 'webhook' && t.fields.connection === ref.connection
  );
  if (triggers.length === 0) {
    throw new PlatformError(
      'trigger_not_found',
      `No webhook trigger of the published build names connection "${ref.connection}"; ${outcome}.`,
    );
  }
  if (triggers.length > 1) {
    throw new PlatformError(
      'connection_conflict',
      `Connection "${ref.connection}" is named by webhook triggers of ${
        triggers.map((t) => `${t.workflow} (${t.id})`).join(' and ')
      }; keep one.`,
    );
  }
  return { env, trigger: triggers[0] };
}

/**
 * The firing of a webhook delivery: where it opens its session and the firing itself, its session key evaluated
 * from the trigger's `session` expression over what the `trigger` variable holds.
 * @throws PlatformError `not_published`, `trigger_not_found`, `connection_conflict` (see {@link runWebhookFiring}),
 *   `invalid_session_key_expression` (a build published before the expression was checked)
 */
export async function webhookFiringOf(
  deps: WebhookFiringDeps,
  delivery: WebhookDelivery,
): Promise<{ target: FiringTarget; firing: Firing }> {
  const { env, trigger } = await webhookTriggerOf(deps, delivery, `delivery ${delivery.deliveryId} opened no session`);
  const target: FiringTarget = {
    orgId: env.orgId,
    agentId: delivery.agentId,
    environment: delivery.environment,
    buildId: env.published.buildId,
    commitId: env.published.commitId,
    workflow: trigger.workflow,
    state: trigger.state,
    trigger: { id: trigger.id, type: 'webhook' },
  };
  const payload = { deliveryId: delivery.deliveryId, ...delivery.payload };
  const sessionKey = webhookSessionKeyOf(trigger, delivery);
  return {
    target,
    firing: {
      payload,
      sessionKey,
      message: `A webhook delivery (${delivery.deliveryId}) arrived; it is in the variable "trigger".`,
      firingKey: JSON.stringify(['webhook', ...webhookIdentity(delivery)]),
    },
  };
}

/**
 * The session key a delivery gets from its trigger's `session` expression (undefined: none, or a placeholder yields
 * nothing). The endpoint evaluates it before it acknowledges, the dispatcher again when it fires.
 * @throws PlatformError `invalid_session_key_expression` (a build published before the expression was checked)
 */
export function webhookSessionKeyOf(
  trigger: TriggerDeclaration,
  delivery: Pick<WebhookDelivery, 'deliveryId' | 'payload'>,
): string | undefined {
  const expression = typeof trigger.fields.session === 'string' ? trigger.fields.session : undefined;
  const firing = { id: trigger.id, type: 'webhook', deliveryId: delivery.deliveryId, ...delivery.payload };
  return sessionKeyOf(expression, firing);
}

/** What identifies a delivery among all firings: agent, environment, connection and delivery id. */
const webhookIdentity = (
  d: Pick<WebhookDelivery, 'agentId' | 'environment' | 'connection' | 'deliveryId'>,
) => [d.agentId, d.environment, d.connection, d.deliveryId];

/**
 * The job id of a delivery's `webhook` job: `webhook-<SHA-256 of agent, environment, connection, delivery id>`, so
 * the endpoint's add and the resume sweep's add of one delivery are one job (BullMQ refuses `:` in job ids).
 */
export async function webhookJobIdOf(
  ids: Pick<FiringDeps['ids'], 'sha256Hex'>,
  delivery: WebhookDelivery,
): Promise<string> {
  return `webhook-${await ids.sha256Hex(JSON.stringify(webhookIdentity(delivery)))}`;
}

/**
 * Opens the session of a webhook delivery, or delivers it to the open session of its session key.
 * @returns the session id
 * @throws PlatformError `not_published` (nothing published), `trigger_not_found` (no webhook trigger names the
 *   connection), `connection_conflict` (more than one does; names the workflows), `session_busy` (409: the session of
 *   its key is running or awaiting a decision; {@link runWebhookJob} queues it again)
 */
export async function runWebhookFiring(deps: WebhookFiringDeps, delivery: WebhookDelivery): Promise<string> {
  const { target, firing } = await webhookFiringOf(deps, delivery);
  return (await openFiredSession(deps, target, firing)).session._id;
}

/** Tries a webhook delivery whose session stays busy gets (the first included), before it is dropped. */
export const WEBHOOK_BUSY_ATTEMPTS = 10;

/**
 * The delay before try `attempt + 1` of a delivery whose session was busy at try `attempt` (1-based): 5 s doubling
 * to at most 5 minutes (5, 10, 20 … 300 s; about 20 minutes over {@link WEBHOOK_BUSY_ATTEMPTS} tries).
 */
export const webhookRetryDelayMs = (attempt: number): number => Math.min(5_000 * 2 ** (attempt - 1), 300_000);

/** A `webhook` job of the trigger queue: the delivery and which try this is (absent: the first). */
export interface WebhookJob extends WebhookDelivery {
  attempt?: number;
}

/** How a webhook job ended: the session it opened or joined, queued again, or dropped after the last try. */
export type WebhookJobOutcome =
  | { outcome: 'opened' | 'delivered' | 'existing'; sessionId: string }
  | { outcome: 'retrying'; attempt: number; delayMs: number }
  | { outcome: 'dropped' };

/**
 * Runs a `webhook` job of the trigger queue (the dispatcher's handler): fires the delivery; when the session of its
 * key is busy, queues the job again after {@link webhookRetryDelayMs} (job id from a digest of the delivery and
 * the try, so a re-run of this job adds it once), and after {@link WEBHOOK_BUSY_ATTEMPTS} tries drops it with one
 * log line naming the delivery id, trigger, workflow and key (never the payload).
 * @param deps.queue - the queue store (only `add` is used); `deps.log` prints one line
 * @throws PlatformError as {@link runWebhookFiring} does, except `session_busy`
 */
export function runWebhookJob(
  deps: WebhookFiringDeps & { queue: Pick<JobQueue, 'add'>; log(line: string): void },
  job: WebhookJob,
): Promise<WebhookJobOutcome> {
  // In a consumer span of the sender's trace (docs/decisions.md D25 § 1): insertTurn keeps it on the first turn.
  return inQueueSpan(WEBHOOK_FIRING_QUEUE, job.trace, () => fireWebhookJob(deps, job));
}

async function fireWebhookJob(
  deps: WebhookFiringDeps & { queue: Pick<JobQueue, 'add'>; log(line: string): void },
  job: WebhookJob,
): Promise<WebhookJobOutcome> {
  const { attempt: tried, ...delivery } = job;
  const attempt = tried ?? 1;
  const { target, firing } = await webhookFiringOf(deps, delivery);
  // The claim the endpoint left pending is settled once the delivery is in its session (a retry of a busy key
  // leaves it to the resume sweep, which settles it when this job has ended).
  const settle = async () => {
    if (delivery.claimScope === undefined) return;
    await settleDelivery(deps, delivery.claimScope, delivery.deliveryId).catch((error: Error) => {
      deps.log(
        `webhook delivery ${delivery.deliveryId} opened its session; its claim is left to the resume sweep ` +
          `(${error.message})`,
      );
    });
  };
  try {
    const fired = await openFiredSession(deps, target, firing);
    await settle();
    return { outcome: fired.outcome, sessionId: fired.session._id };
  } catch (error) {
    if (!isPlatformError(error, 'session_busy')) throw error;
  }
  return retryBusyFiring(deps, {
    name: 'webhook',
    data: delivery,
    identity: webhookIdentity(delivery),
    attempt,
    what: `webhook delivery ${delivery.deliveryId}`,
    target,
    sessionKey: firing.sessionKey,
  });
}

/**
 * The next try of a firing whose keyed session was busy at try `attempt`: job `name` of the trigger queue with `data`
 * and the next attempt, after {@link webhookRetryDelayMs} (job id `<name>-<digest of identity>-try-<n>`, so a re-run
 * adds it once); after {@link WEBHOOK_BUSY_ATTEMPTS} tries it is dropped with one line naming `what`, the trigger, the
 * workflow, the environment and the key (never the payload). Webhook deliveries and claimed keyed firings share it.
 */
export async function retryBusyFiring(
  deps: { ids: Pick<FiringDeps['ids'], 'sha256Hex'>; queue: Pick<JobQueue, 'add'>; log(line: string): void },
  busy: {
    name: string;
    data: object;
    identity: unknown;
    attempt: number;
    what: string;
    target: FiringTarget;
    sessionKey?: string;
  },
): Promise<{ outcome: 'retrying'; attempt: number; delayMs: number } | { outcome: 'dropped' }> {
  const { target, attempt } = busy;
  if (attempt >= WEBHOOK_BUSY_ATTEMPTS) {
    deps.log(
      `dropped ${busy.what} of trigger "${target.trigger.id}" (workflow ` +
        `"${target.workflow}", environment "${target.environment}"): the ` +
        `session of key ${JSON.stringify(busy.sessionKey)} ` + `stayed busy through ${WEBHOOK_BUSY_ATTEMPTS} tries`,
    );
    return { outcome: 'dropped' };
  }
  const delayMs = webhookRetryDelayMs(attempt);
  const digest = await deps.ids.sha256Hex(JSON.stringify(busy.identity));
  await deps.queue.add(TRIGGER_QUEUE, busy.name, { ...busy.data, attempt: attempt + 1 }, {
    jobId: `${busy.name}-${digest}-try-${attempt + 1}`,
    delayMs,
  });
  return { outcome: 'retrying', attempt: attempt + 1, delayMs };
}
