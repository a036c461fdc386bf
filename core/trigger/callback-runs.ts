/**
 * Callback runs: a request to `/api/callbacks/<address>` is handed to the collection whose callback trigger owns the
 * address. The API answers a service's check (GET, HEAD) synchronously with the collection's `response`; any other
 * method is answered 202 at once and its `callback` job runs here, on a dispatcher, in a call worker: the collection's
 * `callback` tool turns the request into firings, and each firing opens one session of the trigger's workflow (once
 * per firing id, claimed in the scope of environment, workflow and trigger; a firing without an id is known by the
 * delivery id and its position).
 *
 * Source: spec/platform-service.md § Endpoints (/api/callbacks/<token>), § Rules 6 (call workers run a callback
 * run), § Replacement of a container (an answered callback request not yet run is lost); docs/decisions.md D8.
 */
import type { TriggerDeclaration } from '../agent/trigger-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { CallbackAnswer, CallbackFiring } from './callback-answer.ts';
import { callbackAddressesCollection, type CallbackAddressRecord } from './callback-addresses.ts';
import { runServiceCall, type ServiceCallDeps } from './poll-service-call.ts';
import { type KeyedFiringDeps, runKeyedFiring } from './keyed-firings.ts';
import { sessionKeyOf } from '../agent/session-key-expression.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { type PublishedEnvironmentRecord, publishedTrigger } from '../session/published-environment.ts';

/** The request a collection is handed (the `request` of the `callback` tool's input). */
export interface CallbackRequest {
  method: string;
  /** content-type, user-agent and x-request-id, null when not sent. */
  headers: { 'content-type': string | null; 'user-agent': string | null; 'x-request-id': string | null };
  query: Record<string, string | string[]>;
  /** Parsed when JSON; else the text. */
  body: unknown;
}

/** A callback delivery (a `callback` job of the trigger queue). */
export interface CallbackDelivery {
  address: string;
  deliveryId: string;
  request: CallbackRequest;
}

/** What an address serves now: its record, the environment and the published trigger. */
export interface CallbackTarget {
  record: CallbackAddressRecord;
  env: PublishedEnvironmentRecord;
  trigger: TriggerDeclaration;
}

/**
 * The callback trigger an address serves on its environment's current published build, or null (the endpoint then
 * answers 404: unknown address, nothing published, trigger removed).
 */
export async function callbackTargetOf(
  deps: { docs: DocumentStore; builds: ReturnType<typeof publishedWorkflows> },
  address: string,
): Promise<CallbackTarget | null> {
  if (address.length === 0 || address.length > 100) return null;
  const record = await deps.docs.collection<CallbackAddressRecord>(callbackAddressesCollection).findOne({ address });
  if (!record) return null;
  const published = await publishedTrigger(deps, record, 'callback');
  return published ? { record, env: published.env, trigger: published.trigger } : null;
}

/** The `callback` tool call for a request to `target`. */
export function callbackCall(target: CallbackTarget, request: CallbackRequest) {
  return {
    collection: String(target.trigger.fields.collection),
    tool: 'callback',
    input: { event: String(target.trigger.fields.event), request: request as unknown as Record<string, unknown> },
  };
}

/**
 * Runs one callback delivery: the collection's answer in a call worker, then one session per new firing.
 * @returns the ids of the sessions opened
 * @throws PlatformError `callback_target_gone` (the address no longer serves a published trigger), or the worker's
 *   failure (`callback_failed` with the service's reason, `callback_answer_unreadable`, a worker limit)
 */
export async function runCallbackDelivery(
  deps: KeyedFiringDeps & ServiceCallDeps & { builds: ReturnType<typeof publishedWorkflows> },
  delivery: CallbackDelivery,
): Promise<string[]> {
  const target = await callbackTargetOf(deps, delivery.address);
  if (!target) {
    throw new PlatformError(
      'callback_target_gone',
      `Callback delivery ${delivery.deliveryId} opened no session: its address no longer serves a published ` +
        `callback trigger.`,
    );
  }
  const { record, env, trigger } = target;
  const call = callbackCall(target, delivery.request);
  const answer = await runServiceCall(deps, {
    task: 'callback',
    subject: `call callback ${trigger.id}`,
    call,
    caller: { orgId: env.orgId, agentId: env.agentId },
  }) as CallbackAnswer;
  const run: CallbackRun = { target, call, delivery, scope: `callback:${record._id}` };
  const opened: string[] = [];
  for (const [index, firing] of answer.firings.entries()) {
    const sessionId = await fireCallbackFiring(deps, run, firing, index);
    if (sessionId !== undefined) opened.push(sessionId);
  }
  deps.log(
    `[triggers] callback trigger ${trigger.id} of ${trigger.workflow} in ${env.agentId}/${env.name}: delivery ` +
      `${delivery.deliveryId} gave ${answer.firings.length} firing(s), ${opened.length} new`,
  );
  return opened;
}

/** One callback delivery under way: its target, the tool call made, the delivery, the claim scope of its firings. */
interface CallbackRun {
  target: CallbackTarget;
  call: ReturnType<typeof callbackCall>;
  delivery: CallbackDelivery;
  scope: string;
}

/**
 * Fires `firing` (the `index`th of the answer) once: a new session, or the open session of its session key.
 * @returns the session opened or delivered to, else undefined (already fired)
 */
async function fireCallbackFiring(
  deps: KeyedFiringDeps,
  run: CallbackRun,
  firing: CallbackFiring,
  index: number,
): Promise<string | undefined> {
  const { target: { env, trigger }, call, delivery, scope } = run;
  const firingId = firing.id ?? `${delivery.deliveryId}-${index}`;
  const payload = {
    collection: call.collection,
    event: call.input.event,
    deliveryId: delivery.deliveryId,
    firingId,
    payload: firing.payload,
  };
  // The trigger's session key (e.g. one session per issue) sends later firings to the open session of that key.
  const sessionKey = sessionKeyOf(typeof trigger.fields.session === 'string' ? trigger.fields.session : undefined, {
    id: trigger.id,
    type: 'callback',
    ...payload,
  });
  const fired = await runKeyedFiring(deps, {
    scope,
    firingId,
    target: {
      orgId: env.orgId,
      agentId: env.agentId,
      environment: env.name,
      buildId: env.published.buildId,
      commitId: env.published.commitId,
      workflow: trigger.workflow,
      state: trigger.state,
      trigger: { id: trigger.id, type: 'callback' },
    },
    firing: {
      payload,
      message:
        `The ${call.collection} collection called back (${call.input.event}, firing ${firingId}); it is in the ` +
        `variable "trigger".`,
      ...(sessionKey ? { sessionKey } : {}),
    },
  });
  return fired.outcome === 'opened' || fired.outcome === 'delivered' ? fired.sessionId : undefined;
}
