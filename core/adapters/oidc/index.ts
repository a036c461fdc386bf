/**
 * OIDC adapter: platform access-token verification through the issuer's discovery document and JWKS.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc).
 */
export { createOidcVerifier, type OidcVerifier, type OidcVerifierOptions } from './oidc-verifier.ts';
export { createDiscoveryLoader, type DiscoveryDocument, discoveryUrl, type FetchFunction } from './discovery.ts';
export {
  createEndpointJwtVerifier,
  type EndpointJwtVerifierAdapter,
  type EndpointJwtVerifierOptions,
  type EndpointOidcSettings,
} from './endpoint-jwt-verifier.ts';
