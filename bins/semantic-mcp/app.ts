/**
 * HTTP routes of semantic-mcp: the production and test MCP endpoints of every project, behind a
 * per-client-IP rate limit and Bearer token authentication. A call the platform makes for an organization's agent
 * (PLATFORM_CALLER_HEADER) is counted per token and that organization and agent instead, once its token verifies.
 * Every limit counts JSON-RPC messages: a request carrying N messages of any method (a batch holds up to 100) counts N,
 * all before any of them runs, and is refused whole (429) when they do not fit; a request whose body is not read
 * (refused headers, unreadable JSON) counts 1.
 *
 * Source: spec/semantic-query-service.md § Endpoints, § Authentication, § Limits; docs/decisions.md D18 § 3.
 */
import { Elysia } from 'elysia';
import { clientAddress, type TrustedProxies } from '../../core/auth/client-address.ts';
import type { RateCount, RateLimiter } from '../../core/ports/rate-limiter.ts';
import { PLATFORM_CALLER_HEADER } from '../../core/ports/tool-catalog.ts';
import { isPlatformError, PlatformError } from '../../core/ports/platform-error.ts';
import type { Plane } from '../../core/semantic/records.ts';
import { authenticateEndpoint } from '../../core/semantic/tokens.ts';
import { readCalls, refuseHeaders, type JsonRpcCall } from './json-rpc.ts';
import { foreignHostRefusal } from './host-check.ts';
import { handleMcpRequest, type McpEndpointDeps } from './mcp-endpoint.ts';
import { startServerTiming, type ServerTiming } from './server-timing.ts';
import { recordRateLimitRefusal } from '../../core/telemetry/instruments.ts';

/**
 * How many times MCP_RATE_LIMIT_MAX one token may spend per 60 s across all the calling agents it names.
 *
 * Source: docs/decisions.md D17 § 6 (per calling organization and agent, without lifting the limit for a token holder)
 */
export const TOKEN_RATE_FACTOR = 10;

/** Dependencies of the app. */
export interface SemanticMcpAppDeps extends McpEndpointDeps {
  /** MCP_RATE_LIMIT_MAX per 60 s: per client address, or per token and calling agent (PLATFORM_CALLER_HEADER). */
  rateLimiter: RateLimiter;
  /**
   * {@link TOKEN_RATE_FACTOR} × MCP_RATE_LIMIT_MAX per 60 s for all the calls of one token that name a calling agent:
   * a token holder naming made-up agents gets no more than that (absent: no such cap).
   */
  tokenRateLimiter?: RateLimiter;
  trustedProxies: TrustedProxies;
  /**
   * Host names answered besides loopback names and IP literals: those of APP_BASE_URL and CORS_ALLOWED_ORIGINS
   * (`ownHostNames`); default none. Any other Host is 421 (docs/decisions.md D18 § 5: ./host-check.ts).
   */
  hostNames?: readonly string[];
}

/** What an endpoint handler reads of Elysia's context: the request, the slug, the socket peer. */
interface EndpointContext {
  request: Request;
  params: { slug: string };
  server: { requestIP(request: Request): { address: string } | null } | null;
}

/** The request {@link answer} answers: which project, from where, timed how. */
interface McpCall {
  /** The project's slug from the path. */
  slug: string;
  /** The client's address (the per-address rate key). */
  client: string;
  /** Times the request's phases (the Server-Timing header). */
  timing: ServerTiming;
}

/** Builds the Elysia app (Bun runtime). */
export function createSemanticMcpApp(env: SemanticMcpAppDeps) {
  const serve = (plane: Plane) => async ({ request, params, server }: EndpointContext) => {
    const peer = server?.requestIP(request)?.address ?? '127.0.0.1';
    const client = clientAddress(peer, request.headers.get('x-forwarded-for'), env.trustedProxies);
    const timing = startServerTiming();
    const response = await answer(env, plane, request, { slug: params.slug, client, timing });
    response.headers.set('server-timing', timing.header());
    return response;
  };
  return new Elysia()
    .onRequest(({ request }) => foreignHostRefusal(request, env.hostNames ?? []))
    .get('/mcp/_health', () => ({ status: 'ok', version: env.version }))
    .all('/mcp/:slug/mcp', serve('production'), { parse: 'none' })
    .all('/mcp/:slug/test/mcp', serve('test'), { parse: 'none' });
}

/**
 * The counter of `key` on {@link SemanticMcpAppDeps.rateLimiter}: it counts `calls` and answers the 429 when they do
 * not fit (`taken`: calls of this request counted already; `what`: what the request carries, for the refusal).
 */
function limited(env: SemanticMcpAppDeps, key: string, who: string, limit: string) {
  return async (calls = 1, taken = 0, what = 'tools/call'): Promise<Response | undefined> => {
    const count = await env.rateLimiter.consume(key, calls);
    if (count.allowed) return undefined;
    recordRateLimitRefusal(limit);
    return rateRefusal(count, who, { calls: calls + taken, extra: '', what });
  };
}

/** Counts `calls` against the token's cap over all its calling agents ({@link TOKEN_RATE_FACTOR}); the 429 if over. */
async function perToken(
  env: SemanticMcpAppDeps, tokenId: string, calls: number, what: string,
): Promise<Response | undefined> {
  const count = await env.tokenRateLimiter?.consume(`token:${tokenId}`, calls);
  if (!count || count.allowed) return undefined;
  recordRateLimitRefusal('mcp_token');
  const extra = ` (${TOKEN_RATE_FACTOR} × the limit per agent)`;
  return rateRefusal(count, 'with this token', { calls, extra, what });
}

/** The calls a platform call of an authenticated token counts: per token and calling agent, then per token. */
async function callerRefusal(
  env: SemanticMcpAppDeps,
  counted: { caller: string; tokenId: string; calls: number; what: string },
  timing: ServerTiming,
): Promise<Response | undefined> {
  const { caller, tokenId, calls, what } = counted;
  const perCaller = limited(env, `caller:${tokenId}:${caller}`, 'for this organization\'s agent', 'mcp_agent');
  return await timing.measure('rate', () => perCaller(calls, 0, what)) ?? await perToken(env, tokenId, calls, what);
}

/** The body of an authenticated request with good headers (undefined otherwise), the messages it counts, and what. */
async function readCounted(request: Request) {
  const body = refuseHeaders(request) ? undefined : readCalls(await request.text());
  const calls = body === undefined || body instanceof Response ? 1 : body.messages;
  const what = body === undefined || body instanceof Response ? 'tools/call' : carried(body.calls, calls);
  return { body, calls, what };
}

/** Answers one MCP request: its rate limits, its token, then the MCP endpoint; every failure as a JSON error. */
async function answer(env: SemanticMcpAppDeps, plane: Plane, request: Request, call: McpCall): Promise<Response> {
  try {
    return await answerCounted(env, plane, request, call);
  } catch (error) {
    if (error instanceof RateRefusal) return error.response;
    if (isPlatformError(error) && error.status && error.status < 500) {
      return errorResponse(error, error.status === 401 ? { 'www-authenticate': 'Bearer realm="cairn-semantic"' } : {});
    }
    env.logger.error({ err: String(error), slug: call.slug }, 'semantic endpoint failed');
    return errorResponse(new PlatformError(
      'internal',
      'The semantic endpoint failed unexpectedly; try again, and tell the operator if it persists.',
      { status: 500 },
    ));
  }
}

/** {@link answer}'s steps: count, authenticate, read and count the body, then run the MCP request. */
async function answerCounted(
  env: SemanticMcpAppDeps, plane: Plane, request: Request, { slug, client, timing }: McpCall,
): Promise<Response> {
  const caller = platformCallerOf(request);
  const perAddress = limited(env, client, 'from this address', 'mcp_address');
  if (caller === undefined) {
    const refused = await timing.measure('rate', () => perAddress());
    if (refused) return refused;
  }
  const authenticate = () => authenticateEndpoint(env.deps, slug, bearer(request));
  // A call the platform makes for one organization's agent (every such call comes from the dispatcher's address)
  // counts per token and that caller, so one tenant's agent cannot use up another's calls; a token that does not
  // verify still counts against its address.
  const authenticateCounted = () => authenticate().catch(async (error: unknown) => {
    const refused = await perAddress();
    throw refused ? new RateRefusal(refused) : error;
  });
  const checked = caller === undefined ? authenticate : authenticateCounted;
  const { project, token } = await timing.measure('auth', checked);
  // An authenticated request with good headers has its body read here: each of its calls counts before any runs.
  const { body, calls, what } = await readCounted(request);
  if (caller === undefined && calls > 1) {
    const refused = await timing.measure('rate', () => perAddress(calls - 1, 1, what));
    if (refused) return refused;
  }
  if (caller !== undefined) {
    const refused = await callerRefusal(env, { caller, tokenId: token._id, calls, what }, timing);
    if (refused) return refused;
  }
  const mcp = () => handleMcpRequest(env, request, { project, token, plane }, { timing, read: body });
  return await timing.measure('mcp', mcp);
}

/**
 * The `tools/call` messages of a request that expect an answer (each runs a tool; a notification is never run), and
 * at least 1. The rate limits count every message instead (`readCalls`' `messages`: a batch of `tools/list` costs the
 * server work too); this count only words a refusal.
 */
export function callCount(calls: JsonRpcCall[]): number {
  return Math.max(1, calls.filter((c) => c.method === 'tools/call' && c.id !== undefined).length);
}

/** What a refusal says a request of `messages` messages carries: `tools/call` when each is one, else `messages`. */
function carried(calls: JsonRpcCall[], messages: number): string {
  return callCount(calls) === messages ? 'tools/call' : 'JSON-RPC messages';
}

/** What a refused request carried, for its 429. */
interface RefusedRequest {
  /** Messages the request counts (with those counted before authentication). */
  calls: number;
  /** Follows the limit in the message (how it is derived), or ''. */
  extra: string;
  /** What it carries: `tools/call` or `JSON-RPC messages`. */
  what: string;
}

/**
 * The 429 of a count that did not fit, with Retry-After. One call: the limit and the wait. A batch: how many calls
 * it carried, the limit, how many calls the window still holds for the next request, and to send fewer calls per
 * request.
 */
function rateRefusal(count: RateCount, who: string, { calls, extra, what }: RefusedRequest): Response {
  const retry = count.retryAfterSeconds;
  const limit = `${count.limit} calls per 60 s${extra}`;
  const message = calls <= 1
    ? `Too many requests ${who}: at most ${limit}. Retry after ${retry} s.`
    : `Too many calls ${who}: this request carries ${calls} ${what} and each counts against the limit of ${limit}; `
      + (calls > count.limit
        ? `no window holds that many. Send at most ${count.limit} calls per request.`
        : `${count.remaining} remain in this window. Send fewer calls per request, or retry after ${retry} s.`);
  return errorResponse(new PlatformError('rate_limited', message, { status: 429 }), { 'retry-after': String(retry) });
}

/** A refusal over a rate found while authenticating (answered as it is). */
class RateRefusal extends Error {
  constructor(readonly response: Response) { super('rate limited'); }
}

/**
 * The organization and agent the platform names for a tools/call (PLATFORM_CALLER_HEADER, `<orgId>/<agentId>`), or
 * undefined when absent or malformed (then the call counts per address, as the spec's per-IP limit says).
 *
 * Source: docs/decisions.md D17 § 6 (limit platform calls per calling organization and agent)
 */
function platformCallerOf(request: Request): string | undefined {
  const value = request.headers.get(PLATFORM_CALLER_HEADER) ?? '';
  return /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/.test(value) ? value : undefined;
}

function bearer(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** JSON error body `{ error: { code, message } }` with the error's status. */
function errorResponse(error: PlatformError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code: error.code, message: error.message } }), {
    status: error.status ?? 500,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
