/**
 * Which API paths need platform sign-in, which check their own callers, and the request path exactly as the
 * router sees it.
 *
 * Source: spec/platform-service.md § Routes reachable without platform sign-in behind a sign-in load balancer;
 * § Incoming connection authentication.
 */

/**
 * What a path needs of platform sign-in: none (public), optional (a member's own sign-in counts when present:
 * AG-UI and MCP endpoints), or required (every other route; 401 without it).
 *
 * Source: spec/platform-service.md § Routes reachable without platform sign-in (table)
 */
export type SignInNeed = 'none' | 'optional' | 'required';

const publicPaths = [
  /^\/api\/health(?:\/|$)/,
  /^\/api\/(?:sign-in-settings|branding|sign-out)\/?$/,
  /^\/api\/(?:webhooks|callbacks|oauth2)(?:\/|$)/,
];
const optionalPaths = /^\/api\/(?:agui|mcp)(?:\/|$)/;
const ownCallerPaths = /^\/api\/(?:webhooks|callbacks|agui|mcp)(?:\/|$)/;

/**
 * The path of a request URL as Elysia routes it: from the first `/` after the host to the `?`, not decoded.
 * (Bun has already resolved dot segments.)
 *
 * Source: spec/platform-service.md § Authentication (routes reachable without sign-in)
 */
export function requestPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return url.slice(start, query < 0 ? undefined : query);
}

/**
 * Sign-in need of `path`.
 *
 * Source: spec/platform-service.md § Routes reachable without platform sign-in (table); § Incoming connection authentication rule 1
 */
export function signInNeed(path: string): SignInNeed {
  if (publicPaths.some((p) => p.test(path))) return 'none';
  return optionalPaths.test(path) ? 'optional' : 'required';
}

/**
 * True for the endpoints that decide who may call them (webhook, callback, AG-UI, MCP): outside callers and
 * declared browser origins reach them, so the platform's own-pages rule does not apply there.
 *
 * Source: spec/platform-service.md § Incoming connection authentication (rules 1, 2, 5)
 */
export function checksOwnCallers(path: string): boolean {
  return ownCallerPaths.test(path);
}

/**
 * True for methods that may change something (everything but GET, HEAD and OPTIONS).
 *
 * Source: spec/platform-service.md § Authentication rule 1
 */
export function isStateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}
