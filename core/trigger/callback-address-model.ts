/**
 * The stored record of a callback trigger's address and subscription (collection `callback_addresses`), shared by
 * the activation (core/trigger/callback-addresses.ts) and the rest of the lifecycle
 * (core/trigger/callback-lifecycle.ts).
 *
 * Source: spec/platform-service.md § Endpoints (/api/callbacks/<token>); docs/decisions.md D8 § Triggers (callback).
 */

/** Collection of callback addresses (`_id` = `<environment id>/<workflow>/<trigger id>`); never deleted from. */
export const callbackAddressesCollection = 'callback_addresses';

/** A callback trigger's address and its subscription. */
export interface CallbackAddressRecord {
  _id: string;
  schemaVersion: 1;
  address: string;
  agentId: string;
  environment: string;
  workflow: string;
  trigger: string;
  createdAt: Date;
  /** The last successful activation: canonical JSON of what was subscribed, when, and the collection's answer. */
  subscription?: { fingerprint: string; buildId: string; subscribedAt: Date; result: unknown };
  /** Why the last activation failed, while it keeps failing (logged once). */
  failure?: string;
}
