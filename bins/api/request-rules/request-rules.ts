/**
 * The API's request rules, applied in order before any route runs: (a) client address through trusted
 * proxies, (b) the access log, the Host check (421: host-check.ts), (c) the own-pages rule (403), (e) body limits
 * by declared length (413),
 * (f) platform sign-in (401 without a principal where one is required), (g) the per-user ceiling on the routes
 * that start work (429 with Retry-After; route-classes.ts `userCeilingClass`). (d) JSON-only bodies are a helper
 * routes call (`readJson`/`jsonOnly`).
 *
 * Source: spec/platform-service.md § Authentication; § Events (Access log); § Errors; § Limits;
 * docs/architecture.md § Conventions (client addresses).
 */
import { Elysia } from 'elysia';
import type { RedisConnection } from '../../../core/adapters/redis/index.ts';
import { accessLogLine, type AccessLogMode } from '../../../core/auth/access-log.ts';
import { clientAddress, isTrusted, parseTrustedProxies } from '../../../core/auth/client-address.ts';
import type { Principal } from '../../../core/auth/principal.ts';
import type { Logger } from '../../../core/ports/logger.ts';
import { isPlatformError, PlatformError } from '../../../core/ports/platform-error.ts';
import type { RateLimiter } from '../../../core/ports/rate-limiter.ts';
import { errorToResponse } from '../http-helpers.ts';
import { refuseOversizedBody } from './body-limits.ts';
import { isCrossSiteRequest, refuseCrossSite, signInIsOwnDoing, type CrossSitePolicy } from './cross-site.ts';
import { refuseForeignHost } from './host-check.ts';
import { checksOwnCallers, isStateChanging, requestPath, signInNeed, userCeilingClass } from './route-classes.ts';
import { createPrincipalResolver, type SignInVerification } from './sign-in.ts';
import { createUserRate, type ConsumeUserRate } from './user-rate.ts';

/**
 * Options of {@link requestRules}.
 *
 * Source: spec/platform-service.md § Deployment settings
 */
export interface RequestRulesOptions {
  /** PLATFORM_SIGN_IN with its verifier. */
  signIn: SignInVerification;
  /** PLATFORM_EMAIL_VERIFICATION and PLATFORM_MANAGED_DOMAIN_CLAIM. */
  identity: { emailVerification: boolean; managedDomainClaim?: string };
  /** PLATFORM_TRUSTED_PROXIES entries (addresses or CIDR ranges); add the front proxy's address in all-in-one mode. */
  trustedProxies: readonly string[];
  /** The platform's own browser origins: APP_BASE_URL and CORS_ALLOWED_ORIGINS. */
  allowedOrigins: readonly string[];
  /** ACCESS_LOG. */
  accessLog: AccessLogMode;
  /** Receives each access-log line (no trailing newline). */
  log: (line: string) => void;
  /** PLATFORM_USER_RATE_PER_MINUTE. */
  userRatePerMinute: number;
  /** Queue store for the per-user count (one server or a cluster, shared by replicas); omitted counts in this process. */
  redis?: RedisConnection;
  /** A ready per-user limiter (tests); wins over `userRatePerMinute`/`redis`. */
  userRateLimiter?: RateLimiter;
  /** Logs 5xx refusals (an unreachable identity provider). */
  logger: Logger;
}

/**
 * The rules: an Elysia plugin to `.use()` first, and helpers for route handlers.
 *
 * Source: spec/platform-service.md § Authentication
 */
export interface RequestRules {
  /** Use before every route: `new Elysia().use(rules.plugin)…`. Derives `principal` and `clientAddress` into route contexts. */
  plugin: ReturnType<typeof buildPlugin>;
  /** The principal the rules resolved for `request` (undefined on public routes and for callers without sign-in). */
  principalOf(request: Request): Principal | undefined;
  /** {@link principalOf}, or PlatformError `unauthorized` (401). */
  requirePrincipal(request: Request): Principal;
  /** The client address of `request` (socket peer, or the X-Forwarded-For client a trusted proxy names). */
  clientAddressOf(request: Request): string | undefined;
  /**
   * The per-user ceiling the gate already applies to the routes `userCeilingClass` names; a route starting work by
   * another path calls it once. @throws PlatformError `rate_limited` (429, Retry-After)
   */
  consumeUserRate: ConsumeUserRate;
}

/** What the rules learned about one request. */
interface RequestFacts {
  clientAddress: string;
  principal?: Principal;
}

/**
 * Creates the request rules.
 * @throws PlatformError `invalid_config` for a bad PLATFORM_TRUSTED_PROXIES entry
 *
 * Source: spec/platform-service.md § Authentication; § Events (Access log); § Limits
 */
export function requestRules(options: RequestRulesOptions): RequestRules {
  const facts = new WeakMap<Request, RequestFacts>();
  const principalOf = (request: Request) => facts.get(request)?.principal;
  // One count per rules instance: the gate (rule g) and any route calling consumeUserRate share it.
  const consumeUserRate = createUserRate({
    perMinute: options.userRatePerMinute, redis: options.redis, limiter: options.userRateLimiter,
  });
  return {
    plugin: buildPlugin(options, facts, consumeUserRate),
    principalOf,
    requirePrincipal(request) {
      const principal = principalOf(request);
      if (!principal) throw new PlatformError('unauthorized', 'Sign in to continue.', { status: 401 });
      return principal;
    },
    clientAddressOf: (request) => facts.get(request)?.clientAddress,
    consumeUserRate,
  };
}



/** Everything the rules need per app. */
interface RuleContext {
  options: RequestRulesOptions;
  facts: WeakMap<Request, RequestFacts>;
  trusted: ReturnType<typeof parseTrustedProxies>;
  resolvePrincipal: (request: Request) => Promise<Principal | undefined>;
  consumeUserRate: ConsumeUserRate;
}

function buildPlugin(
  options: RequestRulesOptions, facts: WeakMap<Request, RequestFacts>, consumeUserRate: ConsumeUserRate,
) {
  const context: RuleContext = {
    options, facts, trusted: parseTrustedProxies(options.trustedProxies.join(',')),
    resolvePrincipal: createPrincipalResolver({ signIn: options.signIn, ...options.identity }),
    consumeUserRate,
  };
  return new Elysia({ name: 'request-rules', seed: Math.random() })
    .wrap((fn, request) => accessLogged(context, fn, request))
    .onRequest(({ request, server }) => gate(context, request, server?.requestIP(request)?.address ?? ''))
    .onError({ as: 'global' }, ({ code, error }) => {
      if (isPlatformError(error)) return errorToResponse(error, options.logger);
      return code === 'PARSE' ? errorToResponse(new PlatformError('invalid_json', 'The body is not valid JSON.', { status: 400 }), options.logger) : undefined;
    })
    .derive({ as: 'global' }, ({ request }) => ({ principal: facts.get(request)?.principal, clientAddress: facts.get(request)?.clientAddress }));
}

/** Rules (a), (c), (e), (f), (g) in order; answers the refusal, or undefined to let the route run. */
async function gate(context: RuleContext, request: Request, peer: string): Promise<Response | undefined> {
  const path = requestPath(request.url);
  const own: RequestFacts = { clientAddress: clientAddress(peer, request.headers.get('x-forwarded-for'), context.trusted) };
  context.facts.set(request, own);
  if (request.method === 'OPTIONS') return undefined;
  const policy: CrossSitePolicy = { allowedOrigins: context.options.allowedOrigins, forwardedHostTrusted: isTrusted(peer, context.trusted) };
  try {
    refuseForeignHost(request, policy);
    if (isStateChanging(request.method) && !checksOwnCallers(path)) refuseCrossSite(request, policy);
    refuseOversizedBody(request, path);
    own.principal = await signIn(context, request, path, policy);
    if (own.principal && countsAgainstCeiling(context, request, path)) await context.consumeUserRate(own.principal);
    return undefined;
  } catch (error) {
    return refusal(error, context.options);
  }
}

/** The principal of a route that needs (or takes) one. @throws PlatformError `unauthorized` (401) where required */
async function signIn(context: RuleContext, request: Request, path: string, policy: CrossSitePolicy): Promise<Principal | undefined> {
  const need = signInNeed(path);
  if (need === 'none') return undefined;
  if (need === 'optional') {
    // A member's sign-in counts on AG-UI/MCP only when it is their own doing (incoming connections, rule 2).
    if (context.options.signIn.mode === 'cloud-alb' && isCrossSiteRequest(request, policy)) return undefined;
    return context.resolvePrincipal(request).catch(anonymousOnInvalidCredential);
  }
  const principal = await context.resolvePrincipal(request);
  if (!principal) throw new PlatformError('unauthorized', 'Sign in to continue.', { status: 401 });
  return principal;
}

/**
 * True when this request starts work for its signed-in member (rule g): a work-starting route, or an AG-UI run
 * whose sign-in is the member's own doing (their bearer token under oidc, or the platform's own pages; an outside
 * caller of a public endpoint under dev-user is not the dev user).
 *
 * Source: spec/platform-service.md § Limits (per-user ceiling); § Incoming connection authentication (rule 2)
 */
function countsAgainstCeiling(context: RuleContext, request: Request, path: string): boolean {
  const kind = userCeilingClass(request.method, path);
  if (kind !== 'member-run') return kind === 'always';
  return signInIsOwnDoing(request, context.options.signIn.mode, context.options.allowedOrigins);
}

/**
 * Where sign-in is optional, a credential that does not verify (PlatformError `unauthorized`, 401) leaves an
 * anonymous caller: it may be the endpoint's own credential. Anything else is answered as it is: `sign_in_unavailable`
 * (503) when the provider or key host cannot be reached, `email_unverified` (403), or an unexpected error (500).
 * @throws the resolver's error unless it is `unauthorized`
 *
 * Source: spec/platform-service.md § Incoming connection authentication (rules 1, 2); docs/decisions.md D6 § 3
 */
function anonymousOnInvalidCredential(error: unknown): undefined {
  if (isPlatformError(error, 'unauthorized')) return undefined;
  throw error;
}

/** 401 answers carry a Bearer challenge under oidc. */
function refusal(error: unknown, options: RequestRulesOptions): Response {
  const response = errorToResponse(error, options.logger);
  if (response.status === 401 && options.signIn.mode === 'oidc') response.headers.set('www-authenticate', 'Bearer realm="api"');
  return response;
}

/** The app's fetch handler as Elysia's `wrap` hands it over (it answers a Response, or a promise of one). */
type FetchHandler = (...args: unknown[]) => unknown;

/** Wraps the app's fetch: one access-log line per request once the response head is known. */
function accessLogged(context: RuleContext, fetchFn: FetchHandler, request: Request): FetchHandler {
  const { options, facts } = context;
  return async (...args) => {
    const started = performance.now();
    let status = 500;
    try {
      const response = await fetchFn(...args);
      if (response instanceof Response) status = response.status;
      return response;
    } finally {
      const line = accessLogLine(options.accessLog, {
        method: request.method, uri: request.url.slice(Math.max(0, request.url.indexOf('/', request.url.indexOf('://') + 3))), status,
        durationMs: performance.now() - started, clientAddress: facts.get(request)?.clientAddress ?? '-', referer: request.headers.get('referer'),
      });
      if (line !== null) options.log(line);
    }
  };
}
