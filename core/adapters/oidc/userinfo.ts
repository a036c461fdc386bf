/**
 * Userinfo lookup for access tokens that carry no email (many providers put identity claims only in the
 * ID token and at the userinfo endpoint). Answers are cached per token until it expires, at most 5 minutes.
 *
 * Source: spec/platform-service.md § Authentication rule 4 (the provider says whether the email is verified);
 * OpenID Connect Core 1.0 § 5.3.
 */
import type { JWTPayload } from 'jose';
import { PlatformError } from '../../ports/platform-error.ts';
import type { FetchFunction } from './discovery.ts';

/**
 * Options of {@link createUserinfoLookup}.
 *
 * Source: OpenID Connect Core 1.0 § 5.3
 */
export interface UserinfoOptions {
  fetch?: FetchFunction;
  now: () => Date;
  /** Longest time one answer is reused, ms (default 5 minutes). */
  maxAgeMs?: number;
  /** Most cached answers (default 1000; the oldest is dropped first). */
  maxEntries?: number;
}

/** Claims a userinfo answer may not override. */
const TOKEN_OWNED = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'client_id', 'azp', 'scope']);

/**
 * A cached userinfo lookup.
 * @returns `(endpoint, token, claims)` → the token's claims with the userinfo claims filled in; the token's
 *   claims alone when the endpoint refuses the token (the verified-email rule then decides)
 * @throws (from the returned function) PlatformError `unauthorized` (401) when userinfo names another subject;
 *   `sign_in_unavailable` (503) when the endpoint cannot be reached
 *
 * Source: OpenID Connect Core 1.0 § 5.3.2 (sub must match)
 */
export function createUserinfoLookup(options: UserinfoOptions) {
  const cache = new Map<string, { claims: Record<string, unknown>; until: number }>();
  const maxAgeMs = options.maxAgeMs ?? 300_000;
  const maxEntries = options.maxEntries ?? 1000;
  return async (endpoint: string, token: string, claims: JWTPayload): Promise<Record<string, unknown>> => {
    const nowMs = options.now().getTime();
    const hit = cache.get(token);
    if (hit && nowMs < hit.until) return hit.claims;
    const info = await readUserinfo(options.fetch ?? fetch, endpoint, token);
    if (info === undefined) return claims;
    if (info.sub !== claims.sub) {
      throw new PlatformError(
        'unauthorized',
        'The identity provider names another person for this access token; sign in again.',
        { status: 401 },
      );
    }
    const merged: Record<string, unknown> = { ...claims };
    for (const [key, value] of Object.entries(info)) {
      if (!TOKEN_OWNED.has(key) && merged[key] === undefined) merged[key] = value;
    }
    const until = Math.min(nowMs + maxAgeMs, typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity);
    cache.delete(token);
    cache.set(token, { claims: merged, until });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return merged;
  };
}

async function readUserinfo(
  fetchFn: FetchFunction,
  endpoint: string,
  token: string,
): Promise<Record<string, unknown> | undefined> {
  let response: Response;
  try {
    response = await fetchFn(endpoint, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    });
  } catch (cause) {
    throw new PlatformError(
      'sign_in_unavailable',
      "The identity provider's userinfo endpoint cannot be reached; try again shortly.",
      { status: 503, cause },
    );
  }
  if (response.status === 401 || response.status === 403) return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !/json/i.test(type)) {
    throw new PlatformError(
      'sign_in_unavailable',
      `The identity provider's userinfo endpoint answered ${response.status}; try again shortly.`,
      { status: 503 },
    );
  }
  const body = (await response.json().catch(() => undefined)) as unknown;
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
}
