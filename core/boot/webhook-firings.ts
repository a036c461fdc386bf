/**
 * Webhook firings, run by a dispatcher from the trigger queue: the delivery an endpoint acknowledged opens a session
 * of the workflow whose webhook trigger names the connection, on the environment's current published build. Two
 * triggers naming one webhook connection fire neither (the deployment error names the connection and workflows).
 *
 * Source: spec/platform-service.md § Webhook firing payload, § Trigger declarations (two triggers naming one AG-UI or
 * webhook connection both fail), § Firings; issue 8 § Endpoints (webhook: processed off the request).
 */
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { openFiredSession } from '../session/firings.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { publishedWorkflows } from './workflow-view.ts';

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

/** A delivery the endpoint acknowledged (a `webhook` job of the trigger queue). */
export interface WebhookDelivery { agentId: string; environment: string; connection: string; deliveryId: string; payload: WebhookPayload }

/**
 * Opens the session of a webhook delivery.
 * @returns the session id
 * @throws PlatformError `not_published` (nothing published), `trigger_not_found` (no webhook trigger names the
 *   connection), `connection_conflict` (more than one does; names the workflows)
 */
export async function runWebhookFiring(
  deps: SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void>; builds: ReturnType<typeof publishedWorkflows> },
  delivery: WebhookDelivery,
): Promise<string> {
  const env = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).findOne({ agentId: delivery.agentId, name: delivery.environment });
  if (!env?.published) throw new PlatformError('not_published', `Environment "${delivery.environment}" has nothing published; delivery ${delivery.deliveryId} opened no session.`);
  const agent = await deps.builds.agentOf(env.published.buildId);
  const triggers = Object.values(agent.workflows).flatMap((w) => w.triggers).filter((t) => t.type === 'webhook' && t.fields.connection === delivery.connection);
  if (triggers.length === 0) throw new PlatformError('trigger_not_found', `No webhook trigger of the published build names connection "${delivery.connection}"; delivery ${delivery.deliveryId} opened no session.`);
  if (triggers.length > 1) throw new PlatformError('connection_conflict', `Connection "${delivery.connection}" is named by webhook triggers of ${triggers.map((t) => `${t.workflow} (${t.id})`).join(' and ')}; keep one.`);
  const [trigger] = triggers;
  const { session } = await openFiredSession(deps, {
    orgId: env.orgId, agentId: delivery.agentId, environment: delivery.environment, buildId: env.published.buildId, commitId: env.published.commitId,
    workflow: trigger.workflow, state: trigger.state, trigger: { id: trigger.id, type: 'webhook' },
  }, { payload: { deliveryId: delivery.deliveryId, ...delivery.payload }, message: `A webhook delivery (${delivery.deliveryId}) arrived; it is in the variable "trigger".` });
  return session._id;
}
