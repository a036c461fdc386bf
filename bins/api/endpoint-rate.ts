/**
 * What the endpoints of incoming connections share: the 404 of an address that serves nothing, the counters of the
 * calls per minute (the shared queue store's, or this process's without one; the counting is the domain's:
 * core/connection/endpoint-calls.ts), and whether a member's platform sign-in on an AG-UI or MCP call is their own
 * doing.
 *
 * Source: spec/platform-service.md § Errors (404; 429 with a retry time), § Limits (endpoint calls per minute),
 * § Incoming connection authentication (rules 1–2).
 */
import { createRateChain } from '../../core/adapters/rate-limit/rate-chain.ts';
import type { RateChain } from '../../core/ports/rate-limiter.ts';
import type { RedisConnection } from '../../core/adapters/redis/open-redis.ts';
import { originAllowed, type ConnectionRecord, type RequestFacts } from '../../core/connection/index.ts';
import { json } from './http-helpers.ts';
import { signInIsOwnDoing } from './request-rules/cross-site.ts';

/** The answer of an address that serves nothing (for any reason). */
export const endpointNotFound = (): Response => json({ error: { code: 'not_found', message: 'Nothing is served at this address.' } }, 404);

/**
 * The calls-per-minute counters of the endpoints (windows of 60 s): per caller and per endpoint, counted in one
 * round trip to the shared queue store (core/adapters/rate-limit/rate-chain.ts), in this process without one.
 */
export function endpointLimiters(rateRedis: RedisConnection | undefined): RateChain {
  return createRateChain({ durationSeconds: 60, keyPrefix: 'cairn:endpoint-rate', redis: rateRedis });
}

/**
 * The facts admission reads from an AG-UI or MCP request (core/connection admitCaller): its credential, its
 * origin and whether that is the platform's own pages, the member signed in, the client address.
 */
export function endpointRequestFacts(deps: MemberSignIn & { clientAddress(request: Request): string | undefined }, request: Request): RequestFacts {
  const origin = request.headers.get('origin') ?? undefined;
  return {
    authorization: request.headers.get('authorization') ?? undefined, origin, fromPlatformPage: origin !== undefined && deps.platformOrigins.includes(origin),
    member: memberOf(deps, request), clientAddress: deps.clientAddress(request),
  };
}

/** How a request's platform sign-in is read (the request rules' view). */
export interface MemberSignIn {
  /** The platform sign-in the request rules resolved (its subject), if any. */
  principalOf(request: Request): { id: string } | undefined;
  /** PLATFORM_SIGN_IN's mode: under oidc a principal comes from the caller's own bearer token. */
  signInMode: 'oidc' | 'cloud-alb' | 'dev-user';
  /** The platform's own page origins (APP_BASE_URL, CORS_ALLOWED_ORIGINS). */
  platformOrigins: readonly string[];
}

/**
 * A signed-in member of an AG-UI or MCP call, and whether the sign-in is their own doing (rule 2): their bearer
 * token under oidc, else a request from the platform's own pages. Undefined without a sign-in.
 */
export function memberOf(deps: MemberSignIn, request: Request): { subject: string; viaOwnDoing: boolean } | undefined {
  const principal = deps.principalOf(request);
  if (!principal) return undefined;
  return { subject: principal.id, viaOwnDoing: signInIsOwnDoing(request, deps.signInMode, deps.platformOrigins) };
}

/**
 * CORS headers for a browser origin the connection lists (AG-UI and MCP): none for a server-to-server call or a
 * site not listed (the admission then refuses it with 403 before anything starts).
 */
export function corsHeaders(connection: Pick<ConnectionRecord, 'origins'>, origin: string | null): Record<string, string> {
  if (!origin || !originAllowed(connection.origins, origin)) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'www-authenticate, retry-after', vary: 'Origin' };
}

/** The answer to a CORS preflight: 204 for a listed origin, 403 naming what to do otherwise. */
export function preflight(connection: Pick<ConnectionRecord, 'origins'>, request: Request, methods: string): Response {
  const cors = corsHeaders(connection, request.headers.get('origin'));
  if (!cors['access-control-allow-origin']) return json({ error: { code: 'origin_refused', message: 'Calls from this site are not allowed on this endpoint; add the site to the connection\'s browser origins.' } }, 403);
  return new Response(null, { status: 204, headers: { ...cors, 'access-control-allow-methods': methods, 'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version', 'access-control-max-age': '600' } });
}

/** `response` with `headers` set (CORS headers on an answer built elsewhere). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
