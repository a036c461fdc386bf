/**
 * The API application: request rules first, then the health, auth, semantic, organization and agent routes, and the
 * JSON 404 (the routes and what they share: ./app-routes.ts; what the app is built from: ./app-parts.ts).
 * Under dev-user sign-in it prepares the fixed user's default organization as it is built (at boot).
 * bins/api/main.ts builds it from the booted settings and stores and listens; the request-rules
 * integration test (test/integration/api-rules.test.ts) builds the very same app over the same boot path.
 *
 * Source: spec/platform-service.md § Endpoints, § Authentication; docs/architecture.md § Processes.
 */
import { type AnyElysia, Elysia } from 'elysia';
import { createAlbVerifier } from '../../core/adapters/cloud-alb/index.ts';
import { createOidcVerifier } from '../../core/adapters/oidc/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { systemClock } from '../../core/adapters/runtime/system.ts';
import type { DispatchingEnv } from '../../core/config/platform-env-model.ts';
import type { ApiAppParts, ApiSignIn } from './app-parts.ts';
import { apiContext, apiRequestRules, endpointRoutes, memberRoutes, platformRoutes } from './app-routes.ts';
import { authRoutes } from './auth-routes.ts';
import { healthRoutes } from './health-routes.ts';
import { inboundSpans } from './inbound-spans.ts';

/**
 * The sign-in verification of PLATFORM_SIGN_IN.
 * @param options - `albKeyUrlBase`: where the load balancer's verification keys are fetched (default: the
 *   region's public key host, from the ARN); tests serve their own keys
 */
export function apiSignIn(signIn: DispatchingEnv['signIn'], options: { albKeyUrlBase?: string } = {}): ApiSignIn {
  if (signIn.mode === 'oidc') {
    const oidc = createOidcVerifier({ issuer: signIn.issuer, clientId: signIn.clientId, audience: signIn.audience });
    return { verification: { mode: 'oidc', verifier: oidc }, oidcDiscovery: oidc.discovery };
  }
  if (signIn.mode === 'cloud-alb') {
    const keyUrlBase = options.albKeyUrlBase ? { keyUrlBase: options.albKeyUrlBase } : {};
    return { verification: { mode: 'cloud-alb', verifier: createAlbVerifier({ arn: signIn.albArn, ...keyUrlBase }) } };
  }
  return { verification: { mode: 'dev-user' } };
}

/** The JSON 404 of a path no route takes. */
function notFound(code: unknown) {
  if (code !== 'NOT_FOUND') return undefined;
  const body = JSON.stringify({ error: { code: 'not_found', message: 'No such API route.' } });
  return new Response(body, { status: 404, headers: { 'content-type': 'application/json' } });
}

/**
 * The API app (not yet listening): `app.listen({ hostname, port, maxRequestBodySize: 21 MiB })` starts it.
 * @throws PlatformError `invalid_config` for a bad PLATFORM_TRUSTED_PROXIES entry
 */
export function createApiApp(parts: ApiAppParts): AnyElysia {
  const { env, docs, logger } = parts;
  const rules = apiRequestRules(parts);
  const ctx = apiContext(parts, rules);
  const embeddedQueue = env.embeddedQueue.enabled
    ? { lease: createDocumentLease(docs, systemClock), instanceId: parts.instanceId }
    : undefined;
  const routes = [...memberRoutes(parts, ctx), ...endpointRoutes(parts, ctx), ...platformRoutes(parts, ctx)];
  // Traced: each traced request's handler runs in its server span's context (docs/decisions.md D25 § 1).
  const app = (parts.tracing ? new Elysia().wrap(inboundSpans) : new Elysia())
    .use(rules.plugin)
    .use(healthRoutes({ version: env.appVersion, embeddedQueue }))
    .use(authRoutes({
      signIn: env.signIn, oidcDiscovery: parts.signIn.oidcDiscovery, branding: parts.config.branding, logger,
    }));
  return routes.reduce<AnyElysia>((mounted, plugin) => mounted.use(plugin), app).onError(({ code }) => notFound(code));
}
