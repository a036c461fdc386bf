/**
 * OpenID Provider discovery: reads `<issuer>/.well-known/openid-configuration` and checks that the document
 * names the configured issuer exactly (a trailing slash included).
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_OIDC_ISSUER, PLATFORM_OIDC_SIGN_OUT_URL);
 * OpenID Connect Discovery 1.0 § 4.
 */
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * The discovery fields the platform reads.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc)
 */
export interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  end_session_endpoint?: string;
}

/**
 * A fetch function (the global one by default; tests may pass their own).
 *
 * Source: docs/architecture.md § Conventions (the world comes in as arguments)
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link createDiscoveryLoader}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_OIDC_ISSUER)
 */
export interface DiscoveryOptions {
  issuer: string;
  fetch?: FetchFunction;
  /** How long a read document is used before it is read again, ms (default 1 hour). */
  maxAgeMs?: number;
  /** After a failed read, how long the failure is answered without asking again, ms (default 5 s). */
  retryAfterMs?: number;
  /** Milliseconds clock (default Date.now); tests pass their own. */
  nowMs?: () => number;
}

/**
 * The discovery URL of `issuer`: a trailing slash is dropped before `/.well-known/openid-configuration`.
 *
 * Source: OpenID Connect Discovery 1.0 § 4
 */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * A cached reader of the issuer's discovery document.
 * @returns a function answering the document
 * @throws (from the returned function) PlatformError `sign_in_unavailable` (503) when the document cannot be
 *   read, is malformed, or names another issuer than PLATFORM_OIDC_ISSUER
 *
 * Source: spec/platform-service.md § Platform sign-in modes (oidc: verifies through the issuer's discovery document)
 */
export function createDiscoveryLoader(options: DiscoveryOptions): () => Promise<DiscoveryDocument> {
  const nowMs = options.nowMs ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? 3_600_000;
  const retryAfterMs = options.retryAfterMs ?? 5_000;
  let current: { promise: Promise<DiscoveryDocument>; until: number } | undefined;
  return () => {
    if (current && nowMs() < current.until) return current.promise;
    const promise = readDiscovery(options.issuer, options.fetch ?? fetch);
    const entry = { promise, until: nowMs() + maxAgeMs };
    current = entry;
    promise.catch(() => {
      if (current === entry) entry.until = nowMs() + retryAfterMs;
    });
    return promise;
  };
}

async function readDiscovery(issuer: string, fetchFn: FetchFunction): Promise<DiscoveryDocument> {
  let body: unknown;
  try {
    const response = await fetchFn(discoveryUrl(issuer), {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    body = await response.json();
  } catch (cause) {
    throw new PlatformError(
      'sign_in_unavailable',
      "The identity provider's discovery document (PLATFORM_OIDC_ISSUER) cannot be read; try again shortly.",
      { status: 503, cause },
    );
  }
  const doc = body as Partial<DiscoveryDocument> | null;
  if (!doc || typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string') {
    throw new PlatformError(
      'sign_in_unavailable',
      "The identity provider's discovery document names no issuer or jwks_uri.",
      { status: 503 },
    );
  }
  if (doc.issuer !== issuer) {
    throw new PlatformError(
      'sign_in_unavailable',
      `The discovery document names the issuer ${doc.issuer}; set PLATFORM_OIDC_ISSUER exactly as that (a trailing ` +
        `slash included).`,
      { status: 503 },
    );
  }
  return {
    issuer: doc.issuer,
    jwks_uri: doc.jwks_uri,
    ...(typeof doc.userinfo_endpoint === 'string' ? { userinfo_endpoint: doc.userinfo_endpoint } : {}),
    ...(typeof doc.end_session_endpoint === 'string' ? { end_session_endpoint: doc.end_session_endpoint } : {}),
  };
}
