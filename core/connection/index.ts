/**
 * Incoming connections (public edge of `core/connection`): records, endpoint addresses, endpoint tokens,
 * OIDC settings and caller admission.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication.
 */
export * from './model.ts';
export { acceptedAlgorithms, checkIdentifier, checkSettings, originAllowed, sameDigest, type ConnectionSettings, type ConnectionSettingsInput, type OidcInput } from './rules.ts';
export {
  applyPendingEdits, connectionByAddress, createConnection, deleteConnection, ensureConnectionIndexes, getConnection, listConnections, regenerateToken, updateConnection,
  type ConnectionChange, type ConnectionWithToken, type CreateConnectionInput,
} from './connections.ts';
export { admitCaller, bearerOf, type Admission, type AdmissionDeps, type AdmittedCaller, type EndpointJwtVerifier, type RequestFacts } from './admission.ts';
