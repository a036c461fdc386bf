/**
 * What every trigger kind does when it fires: opens a session of the triggered workflow at the state declaring the
 * trigger, on a given published build, with the firing as the locked `trigger` variable (`{id, type, …payload}`) and
 * its arguments as locked variables, and queues its first turn (a `delivery`). Deliveries that carry an id are
 * claimed once, atomically (an insert under a unique id), so retries and concurrent duplicates fire once.
 *
 * Source: ../shared/AGENT-FORMAT.md § Triggers (arguments of a firing become locked variables; `trigger` is
 * reserved); spec/platform-service.md § Firings, § Webhook firing payload; issue 8 (a retry fires once, exactly
 * once under concurrent duplicates).
 */
import { isPlatformError } from '../ports/platform-error.ts';
import { sessionSchemaVersion, type SessionRecord, type SessionValue } from './model.ts';
import { insertSession, insertTurn, type SessionStoreDeps } from './session-store.ts';

/** Collection of claimed deliveries (`_id` = {@link deliveryKey}). */
export const deliveriesCollection = 'trigger_deliveries';

const deliveryKey = (scope: string, deliveryId: string) => `${scope}:${deliveryId}`;

/** A claimed delivery. */
export interface DeliveryRecord { _id: string; schemaVersion: typeof sessionSchemaVersion; scope: string; deliveryId: string; claimedAt: Date }

/** Where a firing opens its session. */
export interface FiringTarget {
  orgId: string;
  agentId: string;
  environment: string;
  buildId: string;
  commitId: string;
  workflow: string;
  /** The state declaring the trigger, and the trigger's id and kind. */
  state: string;
  trigger: { id: string; type: string };
}

/**
 * Opens the session of a firing and queues its first turn.
 * @param payload - the firing (kept whole in the `trigger` variable)
 * @param args - the firing's arguments (an mcp call's, a workflow call's): locked variables by name
 */
export async function openFiredSession(
  deps: SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> },
  target: FiringTarget,
  firing: { payload: Record<string, unknown>; args?: Record<string, SessionValue>; message: string },
): Promise<{ session: SessionRecord; turnId: string }> {
  const args = firing.args ?? {};
  const session = await insertSession(deps, {
    orgId: target.orgId, agentId: target.agentId, environment: target.environment, workflow: target.workflow, buildId: target.buildId, commitId: target.commitId,
    state: target.state, trigger: target.trigger.id, depth: 0, inheritedForbid: [],
    variables: { ...args, trigger: { id: target.trigger.id, type: target.trigger.type, ...firing.payload } } as never,
    lockedVariables: [...Object.keys(args), 'trigger'],
  });
  const turn = await insertTurn(deps, session, 'delivery', { message: firing.message });
  await deps.enqueueTurn(turn._id);
  return { session, turnId: turn._id };
}

/**
 * Claims delivery `deliveryId` of `scope` (e.g. a connection id) once: true for the first claim, false for every
 * later one, also under concurrent duplicates (the store's unique `_id` decides, not a read-then-write).
 */
export async function claimDelivery(deps: Pick<SessionStoreDeps, 'docs' | 'clock'>, scope: string, deliveryId: string): Promise<boolean> {
  try {
    await deps.docs.collection<DeliveryRecord>(deliveriesCollection).insertOne({ _id: deliveryKey(scope, deliveryId), schemaVersion: sessionSchemaVersion, scope, deliveryId, claimedAt: deps.clock.now() });
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}

/** Releases a claim whose firing could not be taken (queue store down), so the sender's retry is taken. */
export async function releaseDelivery(deps: Pick<SessionStoreDeps, 'docs'>, scope: string, deliveryId: string): Promise<void> {
  await deps.docs.collection<DeliveryRecord>(deliveriesCollection).deleteOne({ _id: deliveryKey(scope, deliveryId) });
}
