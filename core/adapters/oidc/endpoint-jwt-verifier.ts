/**
 * Verifies JWTs sent to an incoming connection's endpoint in oidc mode, for any issuer, audience, JWKS URL
 * and algorithm list a connection declares: keys from the JWKS URL, or from the issuer's discovery document
 * when none is declared; the issuer exactly, the audience, the algorithms and expiry. Key sets and discovery
 * documents are cached per issuer and URL. Errors never carry token contents.
 *
 * Source: spec/platform-service.md § Incoming connection (issuer, audience, JWKS URL, accepted algorithms),
 * § Incoming connection authentication (oidc; rule 3).
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import { PlatformError } from '../../ports/platform-error.ts';
import { createDiscoveryLoader, type DiscoveryDocument, type FetchFunction } from './discovery.ts';

/** One connection's OIDC settings (the shape core/connection stores). */
export interface EndpointOidcSettings {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  /** Accepted JWS algorithms (RS256 when empty). */
  algorithms: string[];
}

/** Options of {@link createEndpointJwtVerifier}. */
export interface EndpointJwtVerifierOptions {
  fetch?: FetchFunction;
  /** Allowed clock skew on exp/nbf/iat, seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Current time (default the system clock). */
  now?: () => Date;
  /** Issuers and JWKS URLs kept in the caches, at most (default 500; the oldest is dropped). */
  maxCached?: number;
}

/** The verifier: `verify` answers the token's subject or throws. */
export interface EndpointJwtVerifierAdapter {
  /**
   * @returns the subject: `sub`, else `client_id`, else `azp`
   * @throws PlatformError `unauthorized` (401) for a token failing signature, issuer, audience, algorithm or
   *   expiry, or naming no subject; `identity_provider_unavailable` (503) when discovery or keys cannot be read
   */
  verify(token: string, settings: EndpointOidcSettings): Promise<{ subject: string }>;
}

const MAX_TOKEN_CHARS = 16_384;

/** A bounded map: the oldest entry goes when `max` is exceeded. */
function boundedCache<V>(max: number): (key: string, make: () => V) => V {
  const entries = new Map<string, V>();
  return (key, make) => {
    const hit = entries.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    entries.set(key, value);
    if (entries.size > max) entries.delete(entries.keys().next().value as string);
    return value;
  };
}

/**
 * Creates the verifier. Nothing is fetched until a token arrives.
 *
 * Source: spec/platform-service.md § Incoming connection authentication (oidc)
 */
export function createEndpointJwtVerifier(options: EndpointJwtVerifierOptions = {}): EndpointJwtVerifierAdapter {
  const now = options.now ?? (() => new Date());
  const max = options.maxCached ?? 500;
  const discoveries = boundedCache<() => Promise<DiscoveryDocument>>(max);
  const keySets = boundedCache<ReturnType<typeof createRemoteJWKSet>>(max);
  const jwksUrlOf = async (settings: EndpointOidcSettings): Promise<string> => {
    if (settings.jwksUrl) return settings.jwksUrl;
    const load = discoveries(settings.issuer, () => createDiscoveryLoader({ issuer: settings.issuer, fetch: options.fetch, nowMs: () => now().getTime() }));
    try {
      return (await load()).jwks_uri;
    } catch (cause) {
      throw unavailable(`The discovery document of issuer ${settings.issuer} cannot be read or names another issuer; check the connection's issuer, or give its JWKS URL.`, cause);
    }
  };
  return {
    async verify(token, settings) {
      if (token.length === 0 || token.length > MAX_TOKEN_CHARS) throw unauthorized('The token is empty or too long.');
      const uri = await jwksUrlOf(settings);
      const keys = keySets(uri, () => createRemoteJWKSet(new URL(uri), options.fetch ? { [customFetch]: options.fetch } : {}));
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: settings.issuer, audience: settings.audience, algorithms: settings.algorithms.length ? settings.algorithms : ['RS256'],
          requiredClaims: ['exp'], currentDate: now(), clockTolerance: options.clockToleranceSeconds ?? 30,
        }));
      } catch (error) {
        throw mapError(error);
      }
      const subject = [payload.sub, payload.client_id, payload.azp].find((v): v is string => typeof v === 'string' && v.length > 0);
      if (!subject) throw unauthorized('The token names no subject (sub).');
      return { subject };
    },
  };
}

function unauthorized(message: string): PlatformError {
  return new PlatformError('unauthorized', message, { status: 401 });
}

function unavailable(message: string, cause?: unknown): PlatformError {
  return new PlatformError('identity_provider_unavailable', message, { status: 503, ...(cause === undefined ? {} : { cause }) });
}

/** Maps a jose failure to a PlatformError naming the failed check, never the token or its claims. */
function mapError(error: unknown): PlatformError {
  if (error instanceof errors.JWTExpired) return unauthorized('The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) return unauthorized(`The token's ${error.claim} claim is not the one this endpoint accepts.`);
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthorized('The token is signed with an algorithm this endpoint does not accept.');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) return unauthorized('The token is not signed by this endpoint\'s issuer.');
  const down = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError) || (error as errors.JOSEError).code === 'ERR_JOSE_GENERIC';
  if (down) return unavailable('The issuer\'s signing keys cannot be read; try again shortly.', error);
  return unauthorized('The token is not a valid JWT.');
}
