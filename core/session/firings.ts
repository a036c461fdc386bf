/**
 * What every trigger kind does when it fires: opens a session of the triggered workflow at the state declaring the
 * trigger, on a given published build, with the firing as the locked `trigger` variable (`{id, type, …payload}`) and
 * its arguments as locked variables, and queues its first turn (a `delivery`; the sequence: ./session-opening.ts).
 * Deliveries that carry an id are claimed once, atomically (an insert under a unique id), so retries and concurrent
 * duplicates fire once ({@link fireOnce}: the claim records the session to open, settled once it is open).
 *
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Firings, § Webhook firing payload;
 * docs/decisions.md D8 (a retry fires once, exactly once under concurrent duplicates).
 */
import type { Firing, FiringDeps, FiringResult, FiringTarget } from './firing-model.ts';
import { openFiredSession } from './session-opening.ts';

export type { Firing, FiringDeps, FiringResult, FiringTarget } from './firing-model.ts';
import { claimDelivery, deliveriesCollection, type DeliveryRecord, settleDelivery } from './delivery-claims.ts';
export {
  claimDelivery,
  deliveriesCollection,
  type DeliveryRecord,
  type PendingFiring,
  releaseDelivery,
  settleDelivery,
} from './delivery-claims.ts';

/** The firing {@link fireOnce} fires, and the claim it fires under. */
export interface ClaimedFiring {
  /** The delivery claim's scope (e.g. a connection id, or `schedule:<environment>:<trigger>`). */
  scope: string;
  /** The firing's delivery id in `scope`: claimed once; a later firing with it is taken before. */
  firingId: string;
  /** The trigger fired and the agent environment it belongs to. */
  target: FiringTarget;
  /** The firing; its `firingKey` names the session and turn it opens. */
  firing: Firing & { firingKey: string };
}

/**
 * Fires a claimed firing once, as one recoverable step: the claim of `firingId` in `scope` records the session to
 * open (`firing.firingKey` must be set), the session is opened, the claim settled. A firing claimed before whose
 * claim is still pending (its process stopped before opening) is opened now; one claimed and done is left alone.
 * @returns what opening did, or undefined when the firing was taken before
 * @throws what {@link openFiredSession} throws (the claim stays pending: a later sweep opens it)
 */
export async function fireOnce(
  deps: FiringDeps,
  { scope, firingId, target, firing }: ClaimedFiring,
): Promise<FiringResult | undefined> {
  if (!(await claimDelivery(deps, scope, firingId, { open: { target, firing } }))) {
    const claims = deps.docs.collection<DeliveryRecord>(deliveriesCollection);
    const claim = await claims.findOne({ _id: `${scope}:${firingId}` });
    if (!claim?.pending) return undefined;
  }
  const fired = await openFiredSession(deps, target, firing);
  await settleDelivery(deps, scope, firingId);
  return fired;
}
