/**
 * The credential a tool call into a collection carries for an organization, resolved in the trusted process (the
 * dispatcher's broker makes every service call; a worker holds no token and names no organization):
 * - the organization's own connection: its stored token, or its OAuth access token (refreshed a minute before it
 *   expires; a refresh the provider refuses marks the connection for reconnection);
 * - else the deployment's token of the collection's service, only where it is the organization's: a token that
 *   belongs to one organization (a semantic project's) serves that one; any other only a single-organization
 *   install (said at boot, core/boot/collection-access.ts);
 * - else none: the collection is not offered to the organization's agents.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { OAuthClient } from '../ports/oauth-client.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import { connectionLine } from './credentials-line.ts';
import { clientIdChanged, type CollectionApp, type CollectionOffers, connectionState } from './offers.ts';
import { type CollectionConnectionRecord, connectionId, connectionsOf, credentialIdOf } from './records.ts';

/** What resolving credentials needs. */
export interface CredentialDeps {
  docs: DocumentStore;
  clock: Clock;
  secrets: SecretStore;
  offers: CollectionOffers;
  oauth: OAuthClient;
  log(line: string): void;
  /** The organization the deployment's token of `collection` belongs to, or undefined when it belongs to none. */
  deploymentOwner(collection: string): Promise<string | undefined>;
  /** How many organizations the deployment has (may be cached for a few seconds). */
  organizationCount(): Promise<number>;
}

/** The credential of one call. */
export type CollectionCredential =
  | { kind: 'own'; token: string }
  | { kind: 'deployment' }
  | { kind: 'none'; reason: 'not_connected' | 'reconnect' | 'foreign' }
  | { kind: 'failed'; message: string };

/** How long before its expiry an OAuth access token is refreshed, in ms. */
export const REFRESH_AHEAD_MS = 60_000;

/** Resolves credentials; refreshes of one connection in this process are made once at a time. */
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
    const record = await connectionsOf(deps.docs).findOne({ _id: connectionId(orgId, collection) });
    const state = connectionState(record, deps.offers);
    if (state === undefined) return withoutConnection(orgId, collection);
    if (state.status === 'reconnect') return { kind: 'none', reason: 'reconnect' };
    const secret = await deps.secrets.get(credentialIdOf(orgId, collection));
    if (record!.kind === 'token') {
      return secret?.token ? { kind: 'own', token: secret.token } : { kind: 'none', reason: 'reconnect' };
    }
    if (!secret?.accessToken) return { kind: 'none', reason: 'reconnect' };
    const due = record!.expiresAt && record!.expiresAt.getTime() - deps.clock.now().getTime() < REFRESH_AHEAD_MS;
    if (!due) return { kind: 'own', token: secret.accessToken };
    let refresh = refreshing.get(record!._id);
    if (!refresh) {
      refresh = refreshConnection(deps, record!, secret).finally(() => refreshing.delete(record!._id));
      refreshing.set(record!._id, refresh);
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

/** Refreshes an OAuth connection's tokens, or marks it for reconnection when the provider refuses its grant. */
async function refreshConnection(
  deps: CredentialDeps,
  record: CollectionConnectionRecord,
  secret: Record<string, string>,
): Promise<CollectionCredential> {
  const app = deps.offers.get(record.collection)!.app!;
  const place = { orgId: record.orgId, collection: record.collection, by: 'the platform' };
  if (!secret.refreshToken) {
    await askReconnect(
      deps,
      record,
      'Its access token expired and the provider issued no refresh token; connect again.',
    );
    return { kind: 'none', reason: 'reconnect' };
  }
  try {
    const tokens = await deps.oauth.refresh(app, secret.refreshToken);
    // A provider that issues no new refresh token keeps the old one working.
    await deps.secrets.put(credentialIdOf(record.orgId, record.collection), {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? secret.refreshToken,
    });
    await connectionsOf(deps.docs).updateOne({ _id: record._id, status: 'connected' }, {
      $set: { updatedAt: deps.clock.now(), ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt } : {}) },
      ...(tokens.expiresAt ? {} : { $unset: { expiresAt: true } }),
    });
    deps.log(connectionLine({ change: 'refreshed', ...place, detail: `oauth app ${app.appId}` }));
    return { kind: 'own', token: tokens.accessToken };
  } catch (error) {
    if (isPlatformError(error) && error.code === 'oauth_grant_invalid') {
      await askReconnect(deps, record, 'The provider refused its refresh token (revoked or expired); connect again.');
      return { kind: 'none', reason: 'reconnect' };
    }
    const why = isPlatformError(error) ? error.message : 'the provider could not be reached';
    return { kind: 'failed', message: `The ${record.collection} sign-in could not be refreshed: ${why}` };
  }
}

/** Marks a connection for reconnection with `reason` (one `[credentials]` line). */
export async function askReconnect(
  deps: Pick<CredentialDeps, 'docs' | 'clock' | 'log'>,
  record: Pick<CollectionConnectionRecord, '_id' | 'orgId' | 'collection'>,
  reason: string,
): Promise<void> {
  const { matched } = await connectionsOf(deps.docs).updateOne({ _id: record._id, status: 'connected' }, {
    $set: { status: 'reconnect', reconnectReason: reason, updatedAt: deps.clock.now() },
  });
  if (matched === 0) return;
  const detail = reason.replace(/; connect again\.$/, '');
  deps.log(
    connectionLine({
      change: 'reconnect asked',
      orgId: record.orgId,
      collection: record.collection,
      by: 'the platform',
      detail,
    }),
  );
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
