/**
 * An organization's connections of tool collections, as its members manage them: the list with each one's state,
 * storing a token, the OAuth Connect (authorization-code flow with PKCE and state) and its callback, and
 * Disconnect. Managing takes `organization:manage`; any member reads the list; anyone else gets 404 naming nothing.
 *
 * Writes, in order, each use case recovering from a stop between two of them:
 * - token: the secret, then the record (a secret without a record is never read, and the next store overwrites it);
 * - Connect (./oauth-connect.ts): the connect record; the callback's answer on it; at the finish it is removed
 *   before the code is exchanged (single use), then the secret, then the record (a stop in between loses the
 *   connect: the person connects again);
 * - Disconnect: the record marked `disconnecting` (no longer used or listed as connected), revocation at the
 *   provider, the secret removed, the record removed; {@link finishDisconnects} completes one a stop interrupted.
 *
 * Source: spec/platform-service.md § Rules 15, 17; § Replacement (OAuth2 connect in progress: lost);
 * docs/decisions.md D22 § 4.
 */
import { type OrgAccess, orgAccess, requirePermission } from '../org/index.ts';
import type { OrgCaller } from '../org/model.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { OAuthClient } from '../ports/oauth-client.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import { connectionLine } from './credentials-line.ts';
import { deploymentServes } from './credentials.ts';
import { type CollectionOffer, type CollectionOffers, connectionState } from './offers.ts';
import {
  type CollectionConnectionRecord,
  collectionSchemaVersion,
  connectionId,
  connectionsOf,
  credentialIdOf,
} from './records.ts';

/** What the use cases need. */
export interface CollectionDeps {
  docs: DocumentStore;
  clock: Clock;
  /** Random bytes and SHA-256 (a Connect's finish key). */
  ids: Pick<Ids, 'randomBytes' | 'sha256Hex'>;
  secrets: SecretStore;
  offers: CollectionOffers;
  oauth: OAuthClient;
  /** OAUTH2_REDIRECT_URL; unset, Connect fails (503 `oauth_redirect_unset`) and everything else works. */
  redirectUrl?: string;
  /** Receives `[credentials]` lines. */
  log(line: string): void;
  /**
   * Checks a token an organization stores for `collection` (e.g. the semantic service's: a token of one of the
   * organization's own projects); resolves a refusal in words, or undefined when it may be stored.
   */
  checkToken?(orgId: string, collection: string, token: string): Promise<string | undefined>;
  /** The organization the deployment's token of `collection` belongs to, or undefined (./credentials.ts). */
  deploymentOwner(collection: string): Promise<string | undefined>;
  /** How many organizations the deployment has (may be cached for a few seconds). */
  organizationCount(): Promise<number>;
}

/** One collection as a member of an organization sees it. */
export interface CollectionView {
  id: string;
  kind: 'token' | 'oauth';
  /** The organization's own connection, or null. */
  connection: null | {
    status: 'connected' | 'reconnect';
    reconnectReason?: string;
    connectedAt: string;
    connectedBy: string;
    expiresAt?: string;
  };
  /** True when, with no connection of its own, the organization's agents use the deployment's token. */
  usesDeploymentToken: boolean;
  /** Whether the organization's agents are offered its tools now. */
  offered: boolean;
  /** The app that signs in for it (kind oauth). */
  app?: { id: string; collections: string[]; reach: { note?: string; url?: string; signsIn?: string } };
}

/** Shortest and longest token an organization may store, in characters. */
export const TOKEN_LENGTH = { min: 16, max: 4096 } as const;

/**
 * The collections offered by the deployment, with the organization's connection of each.
 * @throws PlatformError `not_found` (404) when the caller is not a member of `orgId`
 */
export async function listCollections(
  deps: CollectionDeps,
  caller: OrgCaller,
  orgId: string,
): Promise<{ collections: CollectionView[]; canManage: boolean }> {
  const access = await orgAccess(deps, caller, orgId);
  const records = await connectionsOf(deps.docs).find({ orgId });
  const collections: CollectionView[] = [];
  for (const offer of deps.offers.values()) {
    const record = records.find((r) => r.collection === offer.id);
    const state = connectionState(record, deps.offers);
    const connection = state ? connectionView(record!, state) : null;
    const usesDeploymentToken = !state && offer.kind === 'token' &&
      (await deploymentServes(deps, orgId, offer.id)).kind === 'deployment';
    collections.push({
      id: offer.id,
      kind: offer.kind,
      connection,
      usesDeploymentToken,
      offered: connection?.status === 'connected' || usesDeploymentToken,
      ...(offer.app
        ? { app: { id: offer.app.appId, collections: offer.app.collections, reach: offer.app.reach ?? {} } }
        : {}),
    });
  }
  return { collections, canManage: access.permissions.includes('organization:manage') };
}

function connectionView(
  record: CollectionConnectionRecord,
  state: NonNullable<ReturnType<typeof connectionState>>,
): CollectionView['connection'] {
  return {
    status: state.status,
    ...(state.reason ? { reconnectReason: state.reason } : {}),
    connectedAt: record.connectedAt.toISOString(),
    connectedBy: record.connectedBy.name,
    ...(record.expiresAt ? { expiresAt: record.expiresAt.toISOString() } : {}),
  };
}

/**
 * Stores the organization's own token for a token collection (replacing any earlier one).
 * @throws PlatformError `not_found` (404) for a non-member; `permission_required` (403); `collection_not_found`
 *   (404) when the deployment offers no such collection; `collection_signs_in` (409) for an OAuth collection;
 *   `invalid_token` (400) when the token is not 16–4096 characters without spaces, or `checkToken` refuses it;
 *   the secret store's error when it cannot store (e.g. no MASTER_KEY outside production)
 */
export async function connectToken(
  deps: CollectionDeps,
  caller: OrgCaller,
  target: { orgId: string; collection: string; token: unknown },
): Promise<CollectionView> {
  const access = await requirePermission(deps, caller, target.orgId, 'organization:manage');
  const offer = offerOf(deps, target.collection);
  if (offer.kind === 'oauth') {
    throw new PlatformError(
      'collection_signs_in',
      `The ${offer.id} collection is signed in to through the ${offer.app!.appId} app: use Connect ` +
        `(POST /api/orgs/<org>/collections/${offer.id}/connect), not a token.`,
      { status: 409 },
    );
  }
  const token = target.token;
  if (
    typeof token !== 'string' || token.length < TOKEN_LENGTH.min || token.length > TOKEN_LENGTH.max || /\s/.test(token)
  ) {
    throw invalidToken(`Send {"token": "…"}: ${TOKEN_LENGTH.min}–${TOKEN_LENGTH.max} characters without spaces.`);
  }
  const refusal = await deps.checkToken?.(target.orgId, offer.id, token);
  if (refusal !== undefined) throw invalidToken(refusal);
  await deps.secrets.put(credentialIdOf(target.orgId, offer.id), { token });
  await saveConnection(deps, { orgId: target.orgId, collection: offer.id, access }, { kind: 'token' });
  deps.log(connectionLine({ change: 'connected', ...who(target.orgId, offer.id, access), detail: 'token' }));
  return viewOf(deps, caller, target.orgId, offer.id);
}

/**
 * Disconnects: the connection stops being used at once, its OAuth grant is revoked at the provider (when it has a
 * revocation endpoint), its secret and record are removed.
 * @throws as {@link connectToken}; `not_connected` (404) when the organization has no connection of it
 */
export async function disconnect(
  deps: CollectionDeps,
  caller: OrgCaller,
  target: { orgId: string; collection: string },
): Promise<void> {
  const access = await requirePermission(deps, caller, target.orgId, 'organization:manage');
  const offer = offerOf(deps, target.collection);
  const id = connectionId(target.orgId, offer.id);
  const { matched } = await connectionsOf(deps.docs).updateOne(
    { _id: id, status: { $ne: 'disconnecting' } },
    { $set: { status: 'disconnecting', updatedAt: deps.clock.now() } },
  );
  if (matched === 0) {
    throw new PlatformError(
      'not_connected',
      `Your organization has no connection of the ${offer.id} collection; GET /api/orgs/<org>/collections lists ` +
        `them.`,
      { status: 404 },
    );
  }
  const record = await connectionsOf(deps.docs).findOne({ _id: id });
  if (record) await removeConnection(deps, record, memberOf(access).name);
}

/**
 * Completes the disconnects a stop interrupted (records left `disconnecting` for over a minute); run at the API's
 * start and by the connections sweep.
 * @returns how many it completed
 */
export async function finishDisconnects(deps: CollectionDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - 60_000);
  const stale = await connectionsOf(deps.docs).find({ status: 'disconnecting', updatedAt: { $lt: before } });
  for (const record of stale) await removeConnection(deps, record, 'the platform');
  return stale.length;
}

/** Revokes (best effort), removes the secret, then the record; each step may run again after a stop. */
async function removeConnection(deps: CollectionDeps, record: CollectionConnectionRecord, by: string): Promise<void> {
  const credentialId = credentialIdOf(record.orgId, record.collection);
  let detail = record.kind === 'token' ? 'token removed' : 'not revoked: no secret';
  if (record.kind === 'oauth') {
    const secret = await deps.secrets.get(credentialId).catch(() => null);
    const app = deps.offers.get(record.collection)?.app;
    const token = secret?.refreshToken ?? secret?.accessToken;
    if (token && app) {
      detail = await deps.oauth.revoke(app, token).then(
        (revoked) => revoked ? `revoked at the provider of app ${app.appId}` : 'the provider has no revocation',
        (error: unknown) => `not revoked: ${error instanceof PlatformError ? error.code : 'provider failed'}`,
      );
    }
  }
  await deps.secrets.delete(credentialId);
  await connectionsOf(deps.docs).deleteOne({ _id: record._id, status: 'disconnecting' });
  deps.log(connectionLine({ change: 'disconnected', orgId: record.orgId, collection: record.collection, by, detail }));
}

/** The offer of `collection`. @throws PlatformError `collection_not_found` (404) naming no identifier */
export function offerOf(deps: Pick<CollectionDeps, 'offers'>, collection: string): CollectionOffer {
  const offer = deps.offers.get(collection);
  if (!offer) {
    throw new PlatformError(
      'collection_not_found',
      'This deployment offers no such collection; GET /api/orgs/<org>/collections lists the ones it offers.',
      { status: 404 },
    );
  }
  return offer;
}

function invalidToken(message: string): PlatformError {
  return new PlatformError('invalid_token', message, { status: 400 });
}

/** The member acting, as connection records name them (their display name, else email). */
export function memberOf(access: OrgAccess): { memberId: string; name: string } {
  return { memberId: access.member._id, name: access.member.name || access.member.email };
}

function who(orgId: string, collection: string, access: OrgAccess) {
  return { orgId, collection, by: memberOf(access).name };
}

/**
 * Writes the organization's connection of a collection as connected (upsert; fields of another kind removed).
 * `target.connectedBy` names who (a finished Connect's starter), else the member of `target.access`.
 */
export async function saveConnection(
  deps: CollectionDeps,
  target: { orgId: string; collection: string; access?: OrgAccess; connectedBy?: { memberId: string; name: string } },
  fields: { kind: 'token' | 'oauth'; appId?: string; clientId?: string; expiresAt?: Date },
): Promise<void> {
  const now = deps.clock.now();
  const connectedBy = target.connectedBy ?? memberOf(target.access!);
  const unset = ['appId', 'clientId', 'expiresAt', 'reconnectReason'].filter((f) => !(f in fields));
  await connectionsOf(deps.docs).updateOne({ _id: connectionId(target.orgId, target.collection) }, {
    $set: {
      schemaVersion: collectionSchemaVersion,
      orgId: target.orgId,
      collection: target.collection,
      status: 'connected',
      connectedBy,
      connectedAt: now,
      updatedAt: now,
      ...fields,
    },
    ...(unset.length ? { $unset: Object.fromEntries(unset.map((f) => [f, true])) } : {}),
  }, { upsert: true });
}

/** The caller's view of one collection of `orgId` (as {@link listCollections} gives it). */
export async function viewOf(deps: CollectionDeps, caller: OrgCaller, orgId: string, collection: string) {
  const { collections } = await listCollections(deps, caller, orgId);
  return collections.find((c) => c.id === collection)!;
}
