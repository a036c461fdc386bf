/**
 * Callback addresses and the activation of callback triggers. Each callback trigger of an environment's published
 * build (environment, workflow, trigger id) gets a stable address, minted once (192 random bits, URL-safe) and never
 * deleted, so a republish, an edit or a removal and restore of the trigger keeps it; it is served at
 * `/api/callbacks/<address>`. Activation is the trigger's lifecycle step: in a call worker, the collection's
 * `subscribe` tool is called with `{event, arguments, callbackUrl}` (callbackUrl = APP_BASE_URL +
 * `/api/callbacks/<address>`) and the subscription it answers is recorded. The callback sweep (once a minute, in every
 * dispatcher) queues the activation of every trigger whose subscription is missing or was made for another
 * collection, event, arguments or URL, or whose subscription is near the `expiresAt` it answered (renewal), and the
 * deactivation of every subscription no trigger serves any more (core/trigger/callback-lifecycle.ts); a failed
 * activation is logged once and tried again at the next sweep.
 *
 * Source: spec/platform-service.md § Rules 2 (the dispatcher registers callback addresses while a trigger activates),
 * § Rules 6 (call workers run a trigger lifecycle step), § Endpoints (/api/callbacks/<token>); docs/decisions.md D8.
 */
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { canonicalJson } from './canonical-json.ts';
import { TRIGGER_QUEUE } from './completion-firings.ts';
import { runServiceCall, type ServiceCallDeps } from './poll-service-call.ts';
import { queueDeactivations, renewalDue } from './callback-lifecycle.ts';
import { callbackAddressesCollection, type CallbackAddressRecord } from './callback-address-model.ts';

export { callbackAddressesCollection, type CallbackAddressRecord };

/** Random bytes of a callback address (192 bits; 32 URL-safe characters), as the connections' addresses. */
const addressBytes = 24;
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { publishedTrigger } from '../session/published-environment.ts';
import { base64url } from '../connection/rules.ts';

/** A callback activation job (`callback-activate` on the trigger queue). */
export interface CallbackActivationJob {
  agentId: string;
  environment: string;
  workflow: string;
  trigger: string;
}

const keyOf = (environmentId: string, workflow: string, trigger: string) => `${environmentId}/${workflow}/${trigger}`;
const addressesOf = (docs: DocumentStore) => docs.collection<CallbackAddressRecord>(callbackAddressesCollection);

/** Declares the unique address index (idempotent; run at dispatcher start). */
export async function ensureCallbackIndexes(docs: DocumentStore): Promise<void> {
  await addressesOf(docs).createIndex({ address: 1 }, { unique: true });
}

/** The public URL of a callback address: `<APP_BASE_URL>/api/callbacks/<address>`. */
export const callbackUrlOf = (appBaseUrl: string, address: string) =>
  `${appBaseUrl.replace(/\/+$/, '')}/api/callbacks/${address}`;

/** The address record of a callback trigger, minted on first use and never changed (concurrent mints agree). */
export async function callbackAddressOf(
  deps: { docs: DocumentStore; ids: Ids; clock: Clock },
  env: Pick<EnvironmentRecord, '_id' | 'agentId' | 'name'>,
  workflow: string,
  trigger: string,
): Promise<CallbackAddressRecord> {
  const addresses = addressesOf(deps.docs);
  const _id = keyOf(env._id, workflow, trigger);
  const existing = await addresses.findOne({ _id });
  if (existing) return existing;
  const record: CallbackAddressRecord = {
    _id,
    schemaVersion: 1,
    address: base64url(deps.ids.randomBytes(addressBytes)),
    agentId: env.agentId,
    environment: env.name,
    workflow,
    trigger,
    createdAt: deps.clock.now(),
  };
  try {
    await addresses.insertOne(record);
    return record;
  } catch (error) {
    const raced = isPlatformError(error, 'duplicate_key') ? await addresses.findOne({ _id }) : null;
    if (raced) return raced;
    throw error;
  }
}

/** The subscribe call of a callback trigger at `callbackUrl`. */
function subscribeCall(fields: Record<string, unknown>, callbackUrl: string) {
  return {
    collection: String(fields.collection),
    tool: 'subscribe',
    input: {
      event: String(fields.event),
      arguments: (fields.arguments as Record<string, unknown> | undefined) ?? {},
      callbackUrl,
    },
  };
}

/**
 * The callback sweep: mints the address of every callback trigger of every published build and queues the
 * activation of each one not subscribed as it is now declared. Job ids: `callback-activate-<digest>-<minute>`.
 * @returns the job ids queued
 */
export async function sweepCallbackTriggers(
  deps: {
    docs: DocumentStore;
    ids: Ids;
    clock: Clock;
    queue: JobQueue;
    builds: ReturnType<typeof publishedWorkflows>;
    appBaseUrl: string;
  },
): Promise<string[]> {
  const queued: string[] = [];
  const live = new Set<string>();
  const now = deps.clock.now();
  const minute = Math.floor(now.getTime() / 60_000);
  const envs = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).find({
    published: { $ne: null },
  });
  for (const env of envs) {
    if (!env.published) continue;
    const agent = await deps.builds.agentOf(env.published.buildId);
    for (
      const trigger of Object.values(agent.workflows).flatMap((w) => w.triggers).filter((t) => t.type === 'callback')
    ) {
      const record = await callbackAddressOf(deps, env, trigger.workflow, trigger.id);
      live.add(record._id);
      const fingerprint = canonicalJson(subscribeCall(trigger.fields, callbackUrlOf(deps.appBaseUrl, record.address)));
      if (record.subscription?.fingerprint === fingerprint && !renewalDue(record.subscription, now)) continue;
      const job: CallbackActivationJob = {
        agentId: env.agentId,
        environment: env.name,
        workflow: trigger.workflow,
        trigger: trigger.id,
      };
      queued.push(
        await deps.queue.add(TRIGGER_QUEUE, 'callback-activate', job, {
          jobId: `callback-activate-${(await deps.ids.sha256Hex(record._id)).slice(0, 32)}-${minute}`,
        }),
      );
    }
  }
  return [...queued, ...(await queueDeactivations(deps, live))];
}

/** True when the environment's published build still declares the address record's callback trigger. */
export async function callbackLive(
  deps: { docs: DocumentStore; builds: ReturnType<typeof publishedWorkflows> },
  record: CallbackAddressRecord,
): Promise<boolean> {
  return (await publishedTrigger(deps, record, 'callback')) !== null;
}

/**
 * Activates one callback trigger (a `callback-activate` job): subscribes in a call worker unless it is subscribed as
 * declared now. A trigger no longer published is left alone.
 * @returns `subscribed`, `unchanged`, `skipped` or `failed`
 */
export async function runCallbackActivation(
  deps: ServiceCallDeps & {
    docs: DocumentStore;
    ids: Ids;
    clock: Clock;
    builds: ReturnType<typeof publishedWorkflows>;
    appBaseUrl: string;
  },
  job: CallbackActivationJob,
): Promise<'subscribed' | 'unchanged' | 'skipped' | 'failed'> {
  const published = await publishedTrigger(deps, job, 'callback');
  if (!published) return 'skipped';
  const { env, trigger } = published;
  const record = await callbackAddressOf(deps, env, job.workflow, job.trigger);
  const call = subscribeCall(trigger.fields, callbackUrlOf(deps.appBaseUrl, record.address));
  const fingerprint = canonicalJson(call);
  if (record.subscription?.fingerprint === fingerprint && !renewalDue(record.subscription, deps.clock.now())) {
    return 'unchanged';
  }
  const name = `callback trigger ${job.trigger} of ${job.workflow} in ${job.agentId}/${job.environment}`;
  try {
    const { subscription } = await runServiceCall(deps, {
      task: 'subscribe',
      subject: `call subscribe ${job.trigger}`,
      call,
      caller: { orgId: env.orgId, agentId: job.agentId },
    }) as { subscription: unknown };
    await addressesOf(deps.docs).updateOne({ _id: record._id }, {
      $set: {
        subscription: {
          fingerprint,
          buildId: env.published.buildId,
          subscribedAt: deps.clock.now(),
          result: subscription,
        },
      },
      $unset: { failure: true },
    });
    const renewed = record.subscription?.fingerprint === fingerprint;
    deps.log(
      `[triggers] ${name}: ${
        renewed ? 'renewed its subscription' : 'subscribed'
      } to ${call.collection} event ${call.input.event}`,
    );
    return 'subscribed';
  } catch (error) {
    const reason = isPlatformError(error) ? error.message : 'the activation failed unexpectedly';
    if (record.failure === undefined) {
      deps.log(
        `[triggers] ${name}: subscribing to ${call.collection} event ${call.input.event} failed (${reason}); ` +
          `trying again at the next sweep`,
      );
    }
    await addressesOf(deps.docs).updateOne({ _id: record._id }, { $set: { failure: reason } });
    return 'failed';
  }
}
