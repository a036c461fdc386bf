/**
 * The rest of a callback trigger's lifecycle after its activation (core/trigger/callback-addresses.ts):
 * - renewal: a subscription whose `subscribe` answer says `expiresAt` (ISO time) is made again by the callback
 *   sweep once it is within {@link RENEW_BEFORE_MS} of expiring (services such as an office suite's expire them);
 * - deactivation: a subscription whose trigger no environment serves any more (removed from the published build,
 *   or the environment unpublished) is ended with the collection's `unsubscribe` tool, `{event, callbackUrl,
 *   subscription}` (the `subscribe` answer), in a call worker; the address record stays (addresses are never
 *   deleted) without its subscription. A collection without an `unsubscribe` tool has nothing to end: the record is
 *   cleared and that is logged once. A failure is logged once and tried again at the next sweep.
 *
 * Source: spec/platform-service.md § Rules 6 (a call worker runs a trigger lifecycle step), § Replacement of a
 * container (renewing callback triggers); docs/decisions.md D8 § Triggers (callback).
 */
import { agentCollections, type AgentRecord } from '../agent/hosting-model.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { callbackAddressesCollection, type CallbackAddressRecord } from './callback-address-model.ts';
import { TRIGGER_QUEUE } from './completion-firings.ts';
import { runServiceCall, type ServiceCallDeps } from './poll-service-call.ts';

/** A subscription is made again once it is this close to the `expiresAt` its collection answered (1 hour). */
export const RENEW_BEFORE_MS = 60 * 60 * 1000;

/** A callback deactivation job (`callback-deactivate` on the trigger queue): the address record to end. */
export interface CallbackDeactivationJob {
  record: string;
}

/** True when `subscription`'s answer names an `expiresAt` within {@link RENEW_BEFORE_MS} of `now` (or past). */
export function renewalDue(subscription: CallbackAddressRecord['subscription'], now: Date): boolean {
  const expiresAt = (subscription?.result as { expiresAt?: unknown } | null | undefined)?.expiresAt;
  if (typeof expiresAt !== 'string') return false;
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at - now.getTime() <= RENEW_BEFORE_MS;
}

const addressesOf = (docs: DocumentStore) => docs.collection<CallbackAddressRecord>(callbackAddressesCollection);

/**
 * Queues the deactivation of every subscribed address whose trigger is not in `live` (the address record ids the
 * sweep found served). Job ids: `callback-deactivate-<digest>-<minute>`. @returns the job ids queued
 */
export async function queueDeactivations(
  deps: { docs: DocumentStore; ids: Ids; clock: Clock; queue: JobQueue },
  live: ReadonlySet<string>,
): Promise<string[]> {
  const minute = Math.floor(deps.clock.now().getTime() / 60_000);
  const queued: string[] = [];
  for (const record of await addressesOf(deps.docs).find({ subscription: { $exists: true } })) {
    if (live.has(record._id) || !record.subscription) continue;
    const job: CallbackDeactivationJob = { record: record._id };
    queued.push(
      await deps.queue.add(TRIGGER_QUEUE, 'callback-deactivate', job, {
        jobId: `callback-deactivate-${(await deps.ids.sha256Hex(record._id)).slice(0, 32)}-${minute}`,
      }),
    );
  }
  return queued;
}

/** What the subscribe call was (its canonical JSON is the subscription's fingerprint). */
interface SubscribedCall {
  collection: string;
  input: { event: string; callbackUrl: string };
}

/**
 * Ends one subscription (a `callback-deactivate` job) unless its trigger is served again meanwhile (`isLive`).
 * @returns `unsubscribed`, `no_unsubscribe_tool`, `skipped` (nothing to end, or live again) or `failed`
 */
export async function runCallbackDeactivation(
  deps: ServiceCallDeps & { docs: DocumentStore; isLive(record: CallbackAddressRecord): Promise<boolean> },
  job: CallbackDeactivationJob,
): Promise<'unsubscribed' | 'no_unsubscribe_tool' | 'skipped' | 'failed'> {
  const record = await addressesOf(deps.docs).findOne({ _id: job.record });
  if (!record?.subscription || (await deps.isLive(record))) return 'skipped';
  const subscribed = JSON.parse(record.subscription.fingerprint) as SubscribedCall;
  const call = {
    collection: subscribed.collection,
    tool: 'unsubscribe',
    input: {
      event: subscribed.input.event,
      callbackUrl: subscribed.input.callbackUrl,
      subscription: record.subscription.result ?? null,
    },
  };
  const name = `callback trigger ${record.trigger} of ${record.workflow} in ${record.agentId}/${record.environment}`;
  const clear = () =>
    addressesOf(deps.docs).updateOne(
      { _id: record._id, 'subscription.fingerprint': record.subscription!.fingerprint },
      { $unset: { subscription: true, failure: true } },
    );
  try {
    const agent = await deps.docs.collection<AgentRecord>(agentCollections.agents).findOne({ _id: record.agentId });
    await runServiceCall(deps, {
      task: 'subscribe',
      subject: `call unsubscribe ${record.trigger}`,
      call,
      ...(agent ? { caller: { orgId: agent.orgId, agentId: record.agentId } } : {}),
    });
    await clear();
    deps.log(`[triggers] ${name}: no longer served, unsubscribed from ${call.collection} event ${call.input.event}`);
    return 'unsubscribed';
  } catch (error) {
    const reason = isPlatformError(error) ? error.message : 'the deactivation failed unexpectedly';
    if (isPlatformError(error, 'tool_not_found') || /no tool "unsubscribe"/.test(reason)) {
      await clear();
      deps.log(
        `[triggers] ${name}: no longer served; the ${call.collection} collection has no unsubscribe tool, so its ` +
          `subscription is left to lapse`,
      );
      return 'no_unsubscribe_tool';
    }
    if (record.failure === undefined) {
      deps.log(
        `[triggers] ${name}: unsubscribing from ${call.collection} event ${call.input.event} failed (${reason}); ` +
          `trying again at the next sweep`,
      );
    }
    await addressesOf(deps.docs).updateOne({ _id: record._id }, { $set: { failure: reason } });
    return 'failed';
  }
}
