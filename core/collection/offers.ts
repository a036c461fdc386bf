/**
 * The collections a deployment offers to organizations, and how each is connected: a token collection takes a
 * credential the organization stores; an OAuth collection (one an oauthApps entry lists) is signed in to through
 * its app. Built once at boot from the resolved config (core/boot/collection-access.ts).
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import type { OAuthAppClient } from '../ports/oauth-client.ts';
import type { CollectionConnectionRecord } from './records.ts';

/** An OAuth app as the collections domain sees it. */
export interface CollectionApp extends OAuthAppClient {
  /** The collections it signs owners in for. */
  collections: string[];
  /** What the Connect page shows: what the app reaches, a link, who signs in. */
  reach?: { note?: string; url?: string; signsIn?: string };
  /** False when the config names no provider (Connect then explains what to set). */
  hasProvider: boolean;
}

/** One collection an organization may connect. */
export interface CollectionOffer {
  /** The collection id (a service entry's `collection`, else its `id`). */
  id: string;
  kind: 'token' | 'oauth';
  /** The app that signs owners in for it (kind oauth). */
  app?: CollectionApp;
}

/** Offers by collection id, in config order. */
export type CollectionOffers = ReadonlyMap<string, CollectionOffer>;

/**
 * The offers of `collections` (each served by a configured service), an app listing a collection making it an
 * OAuth collection (the first app listing it counts).
 */
export function collectionOffers(collections: readonly string[], apps: readonly CollectionApp[]): CollectionOffers {
  const offers = new Map<string, CollectionOffer>();
  for (const id of collections) {
    if (offers.has(id)) continue;
    const app = apps.find((candidate) => candidate.collections.includes(id));
    offers.set(id, app ? { id, kind: 'oauth', app } : { id, kind: 'token' });
  }
  return offers;
}

/** Why a connection of an app whose client id changed must be made again. */
export function clientIdChanged(appId: string): string {
  return `The ${appId} app's client id changed; connect again to sign in through the new one.`;
}

/**
 * What an organization's connection is worth now: none (no record, or a Disconnect under way: undefined),
 * `connected`, or `reconnect` with why (asked for, or an OAuth connection whose app's client id is not the one its
 * tokens were issued to). The one rule of the listing and of the credentials.
 */
export function connectionState(
  record: CollectionConnectionRecord | null | undefined,
  offers: CollectionOffers,
): { status: 'connected' | 'reconnect'; reason?: string } | undefined {
  if (!record || record.status === 'disconnecting') return undefined;
  const app = offers.get(record.collection)?.app;
  if (record.kind === 'oauth' && (!app || app.clientId !== record.clientId)) {
    return { status: 'reconnect', reason: clientIdChanged(app?.appId ?? '') };
  }
  if (record.status === 'reconnect') {
    return { status: 'reconnect', ...(record.reconnectReason ? { reason: record.reconnectReason } : {}) };
  }
  return { status: 'connected' };
}

/**
 * The platform's OAuth client ID metadata document (the URL of the document is the client id), served at
 * `GET /api/oauth2/client-metadata` only when OAUTH2_REDIRECT_URL is https with path /api/oauth2/callback;
 * undefined otherwise. `clientName`: the branding title, default `cairn`.
 *
 * Source: spec/platform-service.md § Endpoints (GET /api/oauth2/client-metadata)
 */
export function clientMetadataDocument(
  redirectUrl: string | undefined,
  clientName = 'cairn',
): Record<string, unknown> | undefined {
  const found = redirectUrl === undefined ? null : /^https:\/\/([^/?#]+)\/api\/oauth2\/callback$/.exec(redirectUrl);
  if (!found) return undefined;
  const origin = `https://${found[1]}`;
  return {
    client_id: `${origin}/api/oauth2/client-metadata`,
    client_name: clientName,
    client_uri: origin,
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
