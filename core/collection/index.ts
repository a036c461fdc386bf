/**
 * Collections domain (public edge of core/collection): organizations' connections of tool collections (a stored
 * token, or an OAuth app's sign-in), the credential each call carries, and the `[credentials]` lines.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 §§ 5–8.
 */
export {
  type CollectionDeps,
  type CollectionView,
  connectToken,
  disconnect,
  finishDisconnects,
  listCollections,
  TOKEN_LENGTH,
} from './connections.ts';
export { answerConnect, type ConnectAnswer, finishConnect, startConnect } from './oauth-connect.ts';
export {
  askReconnectsForNewClientIds,
  type CollectionCredentials,
  collectionCredentials,
  type CredentialDeps,
  deploymentServes,
} from './credentials.ts';
export {
  askReconnect,
  type CollectionCredential,
  REFRESH_AHEAD_MS,
  REFRESH_LEASE_MS,
  type RefreshDeps,
  refreshLeaseName,
} from './oauth-refresh.ts';
export { type ConnectionChange, connectionLine } from './credentials-line.ts';
export {
  clientIdChanged,
  clientMetadataDocument,
  type CollectionApp,
  type CollectionOffer,
  type CollectionOffers,
  collectionOffers,
  connectionState,
} from './offers.ts';
export {
  collectionCollections,
  type CollectionConnectionRecord,
  collectionSchemaVersion,
  CONNECT_TTL_MS,
  connectionId,
  credentialIdOf,
  ensureCollectionIndexes,
  type OAuthConnectRecord,
} from './records.ts';
