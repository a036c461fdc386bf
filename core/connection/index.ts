/**
 * Incoming connections (public edge of `core/connection`): records, endpoint addresses, endpoint tokens,
 * OIDC settings and caller admission.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication.
 */
export * from './model.ts';
export {
  acceptedAlgorithms,
  checkIdentifier,
  checkSettings,
  type ConnectionSettings,
  type ConnectionSettingsInput,
  type OidcInput,
  originAllowed,
  sameDigest,
} from './rules.ts';
export { applyPendingEdits, type ConnectionChange, regenerateToken, updateConnection } from './connection-edits.ts';
export {
  connectionByAddress,
  type ConnectionCreation,
  type ConnectionRef,
  type ConnectionWithToken,
  createConnection,
  type CreateConnectionInput,
  deleteConnection,
  ensureConnectionIndexes,
  getConnection,
  listConnections,
} from './connections.ts';
export {
  type Admission,
  type AdmissionDeps,
  admitCaller,
  type AdmittedCaller,
  bearerOf,
  type EndpointJwtVerifier,
  type RequestFacts,
} from './admission.ts';
