/**
 * The OAuth Connect of a collection, in three steps:
 * 1. `startConnect` (the member, `organization:manage`): a state and an S256 PKCE verifier kept for 10 minutes, and
 *    the provider's authorization URL the member's browser goes to;
 * 2. `answerConnect` (`GET /api/oauth2/callback`, no sign-in): records the provider's answer on the connect its state
 *    names (once) and hands the browser that received it a finish key (its SHA-256 kept), then sends that browser to
 *    the organization's Collections page;
 * 3. `finishConnect` (the page, signed in): only the member who started the Connect, with the key, finishes it: the
 *    connect is removed (single use), the code exchanged with the verifier, the tokens stored, the connection saved.
 * A sign-in someone else started cannot land in their organization: a victim lured to the authorization URL brings
 * the answer to their own browser, which holds the key but is not the starter (the connect is discarded), and the
 * starter never sees the key.
 *
 * Source: spec/platform-service.md § Rules 17; § Replacement (OAuth2 connect in progress: lost); docs/decisions.md
 * D22 § 8.
 */
import { requirePermission } from '../org/index.ts';
import type { OrgCaller } from '../org/model.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { type CollectionDeps, type CollectionView, memberOf, offerOf, saveConnection, viewOf } from './connections.ts';
import { connectionLine } from './credentials-line.ts';
import { collectionSchemaVersion, CONNECT_TTL_MS, connectsOf, credentialIdOf } from './records.ts';

/**
 * Starts a Connect of an OAuth collection.
 * @returns the provider's authorization URL the person's browser goes to, and the app
 * @throws PlatformError `not_found` (404) for a non-member; `permission_required` (403); `collection_not_found`
 *   (404); `collection_takes_token` (409) for a token collection; `oauth_app_incomplete` (503) when the app names no
 *   provider; `oauth_redirect_unset` (503) without OAUTH2_REDIRECT_URL; `oauth_provider_failed` (502) when the
 *   provider's metadata cannot be read
 */
export async function startConnect(
  deps: CollectionDeps,
  caller: OrgCaller,
  target: { orgId: string; collection: string },
): Promise<{ authorizeUrl: string; app: string }> {
  const access = await requirePermission(deps, caller, target.orgId, 'organization:manage');
  const offer = offerOf(deps, target.collection);
  if (offer.kind !== 'oauth') {
    throw new PlatformError(
      'collection_takes_token',
      `The ${offer.id} collection takes a token: PUT /api/orgs/<org>/collections/${offer.id}/token with ` +
        '{"token": "…"}.',
      { status: 409 },
    );
  }
  const app = offer.app!;
  if (!app.hasProvider) {
    throw new PlatformError(
      'oauth_app_incomplete',
      `The ${app.appId} app names no provider: the operator sets oauthApps[].provider (issuer, or authorizationUrl ` +
        `and tokenUrl) in PLATFORM_CONFIG and restarts.`,
      { status: 503 },
    );
  }
  if (!deps.redirectUrl) {
    throw new PlatformError(
      'oauth_redirect_unset',
      'Connecting needs OAUTH2_REDIRECT_URL (https://<host>/api/oauth2/callback, registered on the app); ask the ' +
        'operator to set it and restart.',
      { status: 503 },
    );
  }
  const pkce = await deps.oauth.pkce();
  const now = deps.clock.now();
  await connectsOf(deps.docs).insertOne({
    _id: pkce.state,
    schemaVersion: collectionSchemaVersion,
    orgId: target.orgId,
    collection: offer.id,
    appId: app.appId,
    clientId: app.clientId,
    connectedBy: memberOf(access),
    codeVerifier: pkce.codeVerifier,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CONNECT_TTL_MS),
  });
  const authorizeUrl = await deps.oauth.authorizationUrl(app, {
    redirectUri: deps.redirectUrl,
    state: pkce.state,
    codeChallenge: pkce.codeChallenge,
  });
  return { authorizeUrl, app: app.appId };
}

/** Where the callback sends the browser. */
export interface ConnectAnswer {
  /** Known when the state named a connect. */
  orgId?: string;
  collection?: string;
  /** The connect to finish and its key (the answer was recorded). */
  finish?: { state: string; key: string };
  /** `oauth_connect_unknown` (unknown, used or expired state), `oauth_denied` (refused at the provider). */
  error?: string;
}

/**
 * The provider's callback: records its answer on the connect its state names, once. Never throws for the
 * provider's or the person's answer (the outcome says where to send the browser).
 */
export async function answerConnect(deps: CollectionDeps, query: Record<string, string>): Promise<ConnectAnswer> {
  const state = query.state ?? '';
  const connects = connectsOf(deps.docs);
  const connect = state ? await connects.findOne({ _id: state }) : null;
  if (!connect || connect.answer) return { error: 'oauth_connect_unknown' };
  const place = { orgId: connect.orgId, collection: connect.collection };
  if (connect.expiresAt.getTime() < deps.clock.now().getTime()) return { ...place, error: 'oauth_connect_unknown' };
  if (query.error !== undefined) {
    await connects.deleteOne({ _id: state });
    return { ...place, error: 'oauth_denied' };
  }
  const key = hex(deps.ids.randomBytes(32));
  const finishKeyHash = await deps.ids.sha256Hex(key);
  // Of two callbacks with one state, only the one that records its answer first hands out a key.
  const { matched } = await connects.updateOne({ _id: state, answer: { $exists: false } }, {
    $set: { answer: query, finishKeyHash },
  });
  if (matched === 0) return { error: 'oauth_connect_unknown' };
  return { ...place, finish: { state, key } };
}

/**
 * Finishes a Connect: the member who started it, with the key its callback handed out.
 * @returns the collection's view, connected
 * @throws PlatformError `not_found` (404) for a non-member; `permission_required` (403); `oauth_connect_unknown`
 *   (404) when the connect is unknown, used, expired, not answered, not the caller's (it is then discarded) or the
 *   key is wrong; `oauth_app_changed` (409); `oauth_grant_invalid` (400) or `oauth_provider_failed` (502) from the
 *   code's exchange
 */
export async function finishConnect(
  deps: CollectionDeps,
  caller: OrgCaller,
  target: { orgId: string; collection: string; state: string; key: string },
): Promise<CollectionView> {
  const access = await requirePermission(deps, caller, target.orgId, 'organization:manage');
  const connects = connectsOf(deps.docs);
  const connect = await connects.findOne({ _id: target.state, orgId: target.orgId, collection: target.collection });
  const keyHash = await deps.ids.sha256Hex(target.key);
  const usable = connect?.answer && connect.finishKeyHash === keyHash &&
    connect.expiresAt.getTime() >= deps.clock.now().getTime();
  if (!connect || !usable) throw unknownConnect();
  // Taken once. Someone else's sign-in reaching this member's browser is taken too: it lands nowhere, and its
  // starter cannot finish it.
  const taken = await connects.deleteOne({ _id: connect._id });
  if (taken === 0 || connect.connectedBy.memberId !== access.member._id) throw unknownConnect();
  const app = deps.offers.get(connect.collection)?.app;
  if (!app || app.clientId !== connect.clientId) {
    throw new PlatformError('oauth_app_changed', 'The app changed while you were signing in; connect again.', {
      status: 409,
    });
  }
  const tokens = await deps.oauth.exchangeCode(app, {
    query: connect.answer!,
    redirectUri: deps.redirectUrl ?? '',
    state: connect._id,
    codeVerifier: connect.codeVerifier,
  });
  await deps.secrets.put(credentialIdOf(connect.orgId, connect.collection), {
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
  });
  const place = { orgId: connect.orgId, collection: connect.collection };
  await saveConnection(deps, { ...place, connectedBy: connect.connectedBy }, {
    kind: 'oauth',
    appId: app.appId,
    clientId: app.clientId,
    ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt } : {}),
  });
  const by = connect.connectedBy.name;
  deps.log(connectionLine({ change: 'connected', ...place, by, detail: `oauth app ${app.appId}` }));
  return viewOf(deps, caller, connect.orgId, connect.collection);
}

function unknownConnect(): PlatformError {
  return new PlatformError(
    'oauth_connect_unknown',
    'This sign-in is unknown, expired, already used or was started by someone else; click Connect again.',
    { status: 404 },
  );
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
