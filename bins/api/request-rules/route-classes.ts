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
  // A decision link's token is its caller's right (docs/decisions.md D26 § 3).
  /^\/api\/decisions\/[^/]+\/?$/,
  // Each followed skill registry's commit, skill count and last failure (spec § Endpoints: needs nothing).
  /^\/api\/skill-registries\/?$/,
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
 * The routes that start work and so count against the per-user ceiling (PLATFORM_USER_RATE_PER_MINUTE), by
 * method and path: session starts, replies and decisions; member runs of an AG-UI endpoint (chat messages: the
 * the request rules decide whether the run is a member's); and, by the names their routes take,
 * evaluations, design-agent turns, trigger replays and connection tests.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_USER_RATE_PER_MINUTE); § Limits (per-user ceiling)
 */
export type UserCeilingClass = 'none' | 'always' | 'member-run';

const ceilingPaths = [
  /^\/api\/sessions\/?$/,
  /^\/api\/sessions\/[^/]+\/(?:reply|decide)\/?$/,
  /^\/api\/(?:[^/]+\/)*(?:evaluations|evaluate|design-agent|replay|replays)(?:\/|$)/,
  /^\/api\/agents\/[^/]+\/environments\/[^/]+\/connections\/[^/]+\/test\/?$/,
  // A design chat's run (issue "The design agent": the per-person ceiling covers starting design-agent turns).
  /^\/api\/agents\/[^/]+\/environments\/[^/]+\/design\/?$/,
];
const memberRunPaths = /^\/api\/agui\/[^/]+\/?$/;

/**
 * How `method` `path` counts against the per-user ceiling: `always` (a work-starting route of a signed-in
 * member), `member-run` (an AG-UI run: counted when the caller is a member by their own doing), or `none`.
 *
 * Source: spec/platform-service.md § Limits (per-user ceiling)
 */
export function userCeilingClass(method: string, path: string): UserCeilingClass {
  if (method.toUpperCase() !== 'POST') return 'none';
  if (memberRunPaths.test(path)) return 'member-run';
  return ceilingPaths.some((p) => p.test(path)) ? 'always' : 'none';
}

/**
 * True for methods that may change something (everything but GET, HEAD and OPTIONS).
 *
 * Source: spec/platform-service.md § Authentication rule 1
 */
export function isStateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}
