/**
 * Verifies JWTs sent to an incoming connection's endpoint in oidc mode, for any issuer, audience, JWKS URL
 * and algorithm list a connection declares: keys from the JWKS URL, or from the issuer's discovery document
 * when none is declared; the issuer exactly, the audience, the algorithms and expiry. Key sets and discovery
 * documents are cached per issuer and URL. Errors never carry token contents. Owner-supplied URLs are guarded
 * (https to public hosts, checked again at connect time) unless PLATFORM_ALLOW_PRIVATE_URLS is true.
 *
 * Source: spec/platform-service.md § Incoming connection (issuer, audience, JWKS URL, accepted algorithms),
 * § Incoming connection authentication (oidc; rule 3).
 */
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from 'jose';
import { outboundUrlProblem } from '../../ports/outbound-url.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { createGuardedFetch, OutboundUrlRefusedError } from '../outbound/guarded-fetch.ts';
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
  /** The fetch discovery and keys are read with (default: the guarded fetch of core/adapters/outbound). */
  fetch?: FetchFunction;
  /**
   * PLATFORM_ALLOW_PRIVATE_URLS (effective; false in production). False (the default): the issuer, the JWKS URL and
   * the `jwks_uri` discovery names must be https to a public host, and (with the default fetch) every address they
   * resolve to must be public at connect time; a refusal is `identity_provider_unavailable` naming the variable.
   */
  allowPrivateUrls?: boolean;
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
  const max = options.maxCached ?? 500;
  const allowPrivate = options.allowPrivateUrls === true;
  const verifier: Verifier = {
    now: options.now ?? (() => new Date()),
    clockToleranceSeconds: options.clockToleranceSeconds ?? 30,
    allowPrivate,
    fetchFn: options.fetch ?? createGuardedFetch({ allowPrivate }),
    discoveries: boundedCache<() => Promise<DiscoveryDocument>>(max),
    keySets: boundedCache<ReturnType<typeof createRemoteJWKSet>>(max),
  };
  return { verify: (token, settings) => verifyToken(verifier, token, settings) };
}

/** What a verifier's calls share: its clock, its fetch and URL rule, the cached discoveries and key sets. */
interface Verifier {
  now: () => Date;
  clockToleranceSeconds: number;
  allowPrivate: boolean;
  fetchFn: FetchFunction;
  discoveries: (key: string, make: () => () => Promise<DiscoveryDocument>) => () => Promise<DiscoveryDocument>;
  keySets: (key: string, make: () => ReturnType<typeof createRemoteJWKSet>) => ReturnType<typeof createRemoteJWKSet>;
}

/** Verifies `token` against `settings`; returns its subject (`sub`, else `client_id`, else `azp`). */
async function verifyToken(
  verifier: Verifier,
  token: string,
  settings: EndpointOidcSettings,
): Promise<{ subject: string }> {
  if (token.length === 0 || token.length > MAX_TOKEN_CHARS) throw unauthorized('The token is empty or too long.');
  const uri = await jwksUrlOf(verifier, settings);
  const keys = verifier.keySets(uri, () => createRemoteJWKSet(new URL(uri), { [customFetch]: verifier.fetchFn }));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: settings.algorithms.length ? settings.algorithms : ['RS256'],
      requiredClaims: ['exp'],
      currentDate: verifier.now(),
      clockTolerance: verifier.clockToleranceSeconds,
    }));
  } catch (error) {
    throw mapError(error);
  }
  const subject = [payload.sub, payload.client_id, payload.azp].find((v): v is string =>
    typeof v === 'string' && v.length > 0
  );
  if (!subject) throw unauthorized('The token names no subject (sub).');
  return { subject };
}

/** `url` when the URL rule allows it (`what` names it in the refusal). @throws `identity_provider_unavailable` */
function guard(verifier: Verifier, what: string, url: string): string {
  const problem = outboundUrlProblem(url, verifier.allowPrivate);
  if (problem) throw unavailable(`The ${what} ${problem}.`);
  return url;
}

/** The connection's JWKS URL, else the `jwks_uri` of its issuer's discovery document (cached per issuer). */
async function jwksUrlOf(verifier: Verifier, settings: EndpointOidcSettings): Promise<string> {
  if (settings.jwksUrl) return guard(verifier, "connection's JWKS URL", settings.jwksUrl);
  guard(verifier, "connection's issuer", settings.issuer);
  const loader = () =>
    createDiscoveryLoader({
      issuer: settings.issuer,
      fetch: verifier.fetchFn,
      nowMs: () => verifier.now().getTime(),
    });
  const load = verifier.discoveries(settings.issuer, loader);
  let jwksUri: string;
  try {
    jwksUri = (await load()).jwks_uri;
  } catch (cause) {
    const refused = refusalIn(cause);
    if (refused) throw unavailable(refused.message, cause);
    throw unavailable(
      `The discovery document of issuer ${settings.issuer} cannot be read or names another issuer; check the ` +
        `connection's issuer, or give its JWKS URL.`,
      cause,
    );
  }
  return guard(verifier, "jwks_uri of the issuer's discovery document", jwksUri);
}

function unauthorized(message: string): PlatformError {
  return new PlatformError('unauthorized', message, { status: 401 });
}

function unavailable(message: string, cause?: unknown): PlatformError {
  return new PlatformError('identity_provider_unavailable', message, {
    status: 503,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The outbound URL refusal somewhere in `error`'s cause chain (undici wraps it in `fetch failed`), if any. */
function refusalIn(error: unknown): OutboundUrlRefusedError | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth += 1) {
    if (at instanceof OutboundUrlRefusedError) return at;
  }
  return undefined;
}

/** Maps a jose failure to a PlatformError naming the failed check, never the token or its claims. */
function mapError(error: unknown): PlatformError {
  const refused = refusalIn(error);
  if (refused) return unavailable(refused.message, error);
  if (error instanceof errors.JWTExpired) return unauthorized('The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return unauthorized(`The token's ${error.claim} claim is not the one this endpoint accepts.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return unauthorized('The token is signed with an algorithm this endpoint does not accept.');
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return unauthorized("The token is not signed by this endpoint's issuer.");
  }
  const down = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) || (error as errors.JOSEError).code === 'ERR_JOSE_GENERIC';
  if (down) return unavailable("The issuer's signing keys cannot be read; try again shortly.", error);
  return unauthorized('The token is not a valid JWT.');
}
