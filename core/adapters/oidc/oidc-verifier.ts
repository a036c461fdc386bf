/**
 * Verifies the web app's OIDC access tokens (JWTs) for oidc sign-in: keys from the issuer's JWKS found through
 * its discovery document, the issuer exactly, and the audience rule of PLATFORM_OIDC_AUDIENCE /
 * PLATFORM_OIDC_CLIENT_ID. Errors never carry token contents.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc); § Deployment settings (PLATFORM_OIDC_*).
 */
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from 'jose';
import { PlatformError } from '../../ports/platform-error.ts';
import { createDiscoveryLoader, type DiscoveryDocument, type FetchFunction } from './discovery.ts';
import { createUserinfoLookup } from './userinfo.ts';

/**
 * Options of {@link createOidcVerifier}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_OIDC_ISSUER, _CLIENT_ID, _AUDIENCE)
 */
export interface OidcVerifierOptions {
  /** PLATFORM_OIDC_ISSUER, exactly as the discovery document names it. */
  issuer: string;
  /** PLATFORM_OIDC_CLIENT_ID: a token without audience must name it in client_id or azp. */
  clientId: string;
  /** PLATFORM_OIDC_AUDIENCE: when set, tokens must name it in aud. */
  audience?: string;
  fetch?: FetchFunction;
  /** Allowed clock skew on exp/nbf/iat, seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Reads the userinfo endpoint when a token carries no email (default true). */
  userinfo?: boolean;
  /** Current time (default the system clock). */
  now?: () => Date;
}

/**
 * A verifier of platform access tokens.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc)
 */
export interface OidcVerifier {
  /**
   * Verifies an access token's signature, issuer, expiry and audience rule.
   * @returns its claims
   * @throws PlatformError `unauthorized` (401) for a token that fails; `sign_in_unavailable` (503) when the
   *   provider's discovery document or keys cannot be read
   */
  verifyAccessToken(token: string): Promise<JWTPayload>;
  /** {@link verifyAccessToken}, plus the userinfo claims when the token itself carries no email (same throws). */
  identify(token: string): Promise<Record<string, unknown>>;
  /** The issuer's discovery document (cached). @throws PlatformError `sign_in_unavailable` (503) */
  discovery(): Promise<DiscoveryDocument>;
}

const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const MAX_TOKEN_CHARS = 16_384;

/**
 * Creates the verifier. Nothing is fetched until the first token.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc); § Deployment settings (PLATFORM_OIDC_AUDIENCE)
 */
export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  const now = options.now ?? (() => new Date());
  const discovery = createDiscoveryLoader({
    issuer: options.issuer,
    fetch: options.fetch,
    nowMs: () => now().getTime(),
  });
  const keysOf = keySetsOf(options.fetch);
  const verifyAccessToken = async (token: string): Promise<JWTPayload> => {
    if (token.length === 0 || token.length > MAX_TOKEN_CHARS) throw unauthorized();
    const keys = keysOf((await discovery()).jwks_uri);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        algorithms: ASYMMETRIC,
        requiredClaims: ['exp', 'sub'],
        currentDate: now(),
        clockTolerance: options.clockToleranceSeconds ?? 30,
        ...(options.audience ? { audience: options.audience } : {}),
      }));
    } catch (error) {
      throw mapVerifyError(error);
    }
    if (!options.audience && payload.client_id !== options.clientId && payload.azp !== options.clientId) {
      throw unauthorized('The access token was not issued to this application; sign in again.');
    }
    return payload;
  };
  const userinfo = createUserinfoLookup({ fetch: options.fetch, now });
  return {
    verifyAccessToken,
    discovery,
    async identify(token) {
      const claims = await verifyAccessToken(token);
      if (typeof claims.email === 'string' || options.userinfo === false) return claims;
      const endpoint = (await discovery()).userinfo_endpoint;
      return endpoint ? userinfo(endpoint, token, claims) : claims;
    },
  };
}

/** One remote key set per jwks_uri (a new one when discovery names another). */
function keySetsOf(fetchFn: FetchFunction | undefined): (jwksUri: string) => ReturnType<typeof createRemoteJWKSet> {
  let current: { uri: string; keys: ReturnType<typeof createRemoteJWKSet> } | undefined;
  return (uri) => {
    if (current?.uri !== uri) {
      current = { uri, keys: createRemoteJWKSet(new URL(uri), fetchFn ? { [customFetch]: fetchFn } : {}) };
    }
    return current.keys;
  };
}

function unauthorized(message = 'The access token is not valid; sign in again.'): PlatformError {
  return new PlatformError('unauthorized', message, { status: 401 });
}

/** Maps a jose failure to a PlatformError without the token or its claims. */
function mapVerifyError(error: unknown): PlatformError {
  if (error instanceof errors.JWTExpired) return unauthorized('The access token has expired; sign in again.');
  const unavailable = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) || (error as errors.JOSEError).code === 'ERR_JOSE_GENERIC';
  if (unavailable) {
    return new PlatformError(
      'sign_in_unavailable',
      "The identity provider's signing keys cannot be read; try again shortly.",
      { status: 503 },
    );
  }
  return unauthorized();
}
