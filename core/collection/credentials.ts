/**
 * The credential a tool call into a collection carries for an organization, resolved in the trusted process (the
 * dispatcher's broker makes every service call; a worker holds no token and names no organization):
 * - the organization's own connection: its stored token, or its OAuth access token (refreshed a minute before it
 *   expires, by one process at a time across dispatchers, ./oauth-refresh.ts; a refresh the provider refuses marks
 *   the connection for reconnection unless another process rotated its refresh token meanwhile);
 * - else the deployment's token of the collection's service, only where it is the organization's: a token that
 *   belongs to one organization (a semantic project's) serves that one; any other only a single-organization
 *   install (said at boot, core/boot/collection-access.ts);
 * - else none: the collection is not offered to the organization's agents.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import { clientIdChanged, type CollectionApp, type CollectionOffers, connectionState } from './offers.ts';
import {
  askReconnect,
  type CollectionCredential,
  readConnection,
  type RefreshDeps,
  refreshOnce,
} from './oauth-refresh.ts';
import { connectionsOf } from './records.ts';

/**
 * What resolving credentials needs: a refresh's (./oauth-refresh.ts: the stores, the OAuth client, the lease every
 * process shares and this process's owner name) and the deployment's token rule.
 */
export interface CredentialDeps extends RefreshDeps {
  offers: CollectionOffers;
  /** The organization the deployment's token of `collection` belongs to, or undefined when it belongs to none. */
  deploymentOwner(collection: string): Promise<string | undefined>;
  /** How many organizations the deployment has (may be cached for a few seconds). */
  organizationCount(): Promise<number>;
}

/**
 * Resolves credentials; a connection's refresh is made once at a time across processes (under its lease), and once
 * for the concurrent calls of this process.
 */
export interface CollectionCredentials {
  /** The credential a call into `collection` for `orgId` carries. */
  credentialFor(orgId: string, collection: string): Promise<CollectionCredential>;
  /** Which of `collections` `orgId`'s agents are offered (one read of its connections; no secret read). */
  offered(orgId: string, collections: readonly string[]): Promise<Set<string>>;
}

/**
 * Credentials over the connections, the secret store and the deployment's tokens.
 *
 * Source: spec/platform-service.md § Rules 15, 17
 */
export function collectionCredentials(deps: CredentialDeps): CollectionCredentials {
  const refreshing = new Map<string, Promise<CollectionCredential>>();
  const withoutConnection = async (orgId: string, collection: string): Promise<CollectionCredential> => {
    const offer = deps.offers.get(collection);
    if (!offer || offer.kind === 'oauth') return { kind: 'none', reason: 'not_connected' };
    return deploymentServes(deps, orgId, collection);
  };
  const credentialFor = async (orgId: string, collection: string): Promise<CollectionCredential> => {
    const reading = await readConnection(deps, orgId, collection);
    if (reading === undefined) return withoutConnection(orgId, collection);
    if (!('record' in reading)) return reading;
    const id = reading.record._id;
    let refresh = refreshing.get(id);
    if (!refresh) {
      refresh = refreshOnce(deps, reading).finally(() => refreshing.delete(id));
      refreshing.set(id, refresh);
    }
    return refresh;
  };
  return {
    credentialFor,
    offered: async (orgId, collections) => {
      const records = await connectionsOf(deps.docs).find({ orgId, collection: { $in: [...collections] } });
      const offered = new Set<string>();
      for (const collection of collections) {
        const state = connectionState(records.find((r) => r.collection === collection), deps.offers);
        const usable = state === undefined
          ? (await withoutConnection(orgId, collection)).kind === 'deployment'
          : state.status === 'connected';
        if (usable) offered.add(collection);
      }
      return offered;
    },
  };
}

/**
 * Whether the deployment's token of `collection` serves `orgId`: its owner's agents only when it has one, else a
 * single-organization install's.
 */
export async function deploymentServes(
  deps: Pick<CredentialDeps, 'deploymentOwner' | 'organizationCount'>,
  orgId: string,
  collection: string,
): Promise<CollectionCredential> {
  const owner = await deps.deploymentOwner(collection);
  if (owner !== undefined) return owner === orgId ? { kind: 'deployment' } : { kind: 'none', reason: 'foreign' };
  return (await deps.organizationCount()) <= 1 ? { kind: 'deployment' } : { kind: 'none', reason: 'not_connected' };
}

/**
 * At start: every OAuth connection whose app's client id is no longer the configured one is asked to reconnect
 * (one line each). @returns how many
 */
export async function askReconnectsForNewClientIds(
  deps: Pick<CredentialDeps, 'docs' | 'clock' | 'log' | 'offers'>,
): Promise<number> {
  const apps = new Map<string, CollectionApp>();
  for (const offer of deps.offers.values()) if (offer.app) apps.set(offer.app.appId, offer.app);
  const records = await connectionsOf(deps.docs).find({ kind: 'oauth', status: 'connected' });
  let asked = 0;
  for (const record of records) {
    const app = record.appId ? apps.get(record.appId) : undefined;
    if (app && app.clientId === record.clientId) continue;
    await askReconnect(deps, record, clientIdChanged(record.appId ?? 'its'));
    asked += 1;
  }
  return asked;
}
