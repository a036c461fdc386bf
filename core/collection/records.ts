/**
 * Stored records of collection connections: an organization's own credential for a tool collection (a token it
 * stored, or the tokens of an OAuth app's sign-in), and the OAuth connects in progress. The credential's values
 * live in the secret store only (credential id {@link credentialIdOf}); these records say which kind, whose, and
 * whether it is usable.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';

/** Shape version of the documents of {@link collectionCollections}. */
export const collectionSchemaVersion = 1 as const;

/** Document store collections of this domain. */
export const collectionCollections = {
  /** One per organization and collection: `_id` = {@link connectionId}. */
  connections: 'collection_connections',
  /** One per Connect in progress: `_id` = the OAuth state; removed at its callback or when it expires. */
  connects: 'oauth_connects',
} as const;

/** How long a Connect may take from the click to the provider's callback, in ms (10 minutes). */
export const CONNECT_TTL_MS = 10 * 60_000;

/** An organization's connection of one collection. */
export interface CollectionConnectionRecord extends BaseDocument {
  _id: string;
  schemaVersion: typeof collectionSchemaVersion;
  orgId: string;
  collection: string;
  /** `token`: a credential the organization stored; `oauth`: an app's sign-in (tokens refreshed by the platform). */
  kind: 'token' | 'oauth';
  /** The oauthApps entry (kind oauth). */
  appId?: string;
  /** The app's client id the tokens were issued to (kind oauth): another one in the config asks to reconnect. */
  clientId?: string;
  /**
   * `reconnect`: the credential can no longer be used (client id changed, grant revoked or expired);
   * `disconnecting`: a Disconnect is under way (not used, not listed; completed by finishDisconnects).
   */
  status: 'connected' | 'reconnect' | 'disconnecting';
  /** Why it must be connected again (status reconnect), in words a person reads. */
  reconnectReason?: string;
  /** The member who connected it (member id) and their display name or email at the time. */
  connectedBy: { memberId: string; name: string };
  connectedAt: Date;
  updatedAt: Date;
  /** When the OAuth access token expires (kind oauth; absent when the provider did not say). */
  expiresAt?: Date;
}

/**
 * A Connect in progress (the OAuth state and the PKCE verifier it is bound to). The callback records the provider's
 * answer and a finish key's hash; only the member who started it, in the browser the callback reached (the key),
 * finishes it.
 */
export interface OAuthConnectRecord extends BaseDocument {
  /** The state parameter. */
  _id: string;
  schemaVersion: typeof collectionSchemaVersion;
  orgId: string;
  collection: string;
  appId: string;
  clientId: string;
  /** The member who clicked Connect. */
  connectedBy: { memberId: string; name: string };
  codeVerifier: string;
  /** The provider's answer at the callback (its query: code, state, iss), kept until the member finishes. */
  answer?: Record<string, string>;
  /** SHA-256 (hex) of the finish key the callback handed the browser that received it. */
  finishKeyHash?: string;
  createdAt: Date;
  /** Past it the callback is refused (and the TTL index removes the record). */
  expiresAt: Date;
}

/** The id of an organization's connection of `collection`. */
export function connectionId(orgId: string, collection: string): string {
  return `${orgId}/${collection}`;
}

/** The secret store's credential id of an organization's connection of `collection`. */
export function credentialIdOf(orgId: string, collection: string): string {
  return `collection-${orgId}-${collection}`;
}

/** The connections collection. */
export const connectionsOf = (docs: DocumentStore) =>
  docs.collection<CollectionConnectionRecord>(collectionCollections.connections);

/** The connects collection. */
export const connectsOf = (docs: DocumentStore) => docs.collection<OAuthConnectRecord>(collectionCollections.connects);

/** Indexes of this domain (idempotent): connections by organization, connects removed after they expire. */
export async function ensureCollectionIndexes(docs: DocumentStore): Promise<void> {
  await connectionsOf(docs).createIndex({ orgId: 1 });
  await connectionsOf(docs).createIndex({ appId: 1 });
  await connectsOf(docs).createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
}
