/**
 * The API application: request rules first, then the health, auth, semantic, organization and agent routes, and the JSON 404.
 * Under dev-user sign-in it prepares the fixed user's default organization as it is built (at boot).
 * bins/api/main.ts builds it from the booted settings and stores and listens; the request-rules
 * integration test (test/integration/api-rules.test.ts) builds the very same app over the same boot path.
 *
 * Source: spec/platform-service.md § Endpoints, § Authentication; docs/architecture.md § Processes.
 */
import { Elysia } from 'elysia';
import { createAlbVerifier } from '../../core/adapters/cloud-alb/index.ts';
import { createObjectStoreGitRepo } from '../../core/adapters/git/index.ts';
import { orgAgentAuthority } from '../../core/boot/agent-authority.ts';
import { orgSemanticAuthority } from '../../core/boot/semantic-authority.ts';
import { createOidcVerifier } from '../../core/adapters/oidc/index.ts';
import type { RedisConnection } from '../../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import type { PlatformConfig } from '../../core/config/config-model.ts';
import type { DispatchingEnv } from '../../core/config/platform-env-model.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { devUserPrincipal } from '../../core/auth/principal.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { ObjectStore } from '../../core/ports/object-store.ts';
import { agentRoutes } from './agent-routes.ts';
import { connectionRoutes } from './connection-routes.ts';
import { admissionDeps, connectionDeps } from '../../core/boot/connection-wiring.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { deploymentRoutes } from './deployment-routes.ts';
import { connectionDeploymentHooks, deploymentAccess } from '../../core/boot/deployment-wiring.ts';
import { callbackRoutes } from './callback-routes.ts';
import { mcpRoutes } from './mcp-routes.ts';
import { aguiRoutes } from './agui-routes.ts';
import { mcpCallDeps } from '../../core/boot/endpoint-wiring.ts';
import { templateFiles } from './agent-template.ts';
import { authRoutes } from './auth-routes.ts';
import { healthRoutes } from './health-routes.ts';
import { requestRules, type SignInVerification } from './request-rules/index.ts';
import { orgPreparation, orgRoutes } from './org-routes.ts';
import { meRoutes } from './me-routes.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { createTxtLookup } from '../../core/adapters/dns/txt-lookup.ts';
import type { TxtLookup } from '../../core/ports/txt-lookup.ts';
import { semanticRoutes } from './semantic-routes.ts';
import { semanticEditorRoutes } from './semantic-editor-routes.ts';
import { semanticPlaygroundRoutes } from './semantic-playground-routes.ts';
import { semanticAccessRoutes } from './semantic-access-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { decisionLinkRoutes } from './decision-link-routes.ts';
import { evaluationRoutes } from './evaluation-routes.ts';
import { designRoutes } from './design-routes.ts';
import { skillRoutes } from './skill-routes.ts';
import { collectionRoutes } from './collection-routes.ts';
import type { CollectionDeps } from '../../core/collection/index.ts';
import { collectionDepsOf } from '../../core/boot/collection-access.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import { createOAuthClient } from '../../core/adapters/oauth/index.ts';
import { createSkillRegistries, type SkillRegistries } from '../../core/skill/registries.ts';
import { createSkillRegistryMirror } from '../../core/adapters/git/skill-registry-mirror.ts';
import { effectiveSkillRegistries } from '../../core/config/config-model.ts';
import { evaluationDeps } from '../../core/boot/evaluation-wiring.ts';
import { chatRoutes } from './chat-routes.ts';
import { sessionDeps } from '../../core/boot/session-wiring.ts';
import { operationEnqueuer } from '../../core/boot/environment-operations.ts';
import { publishedWorkflows } from '../../core/session/build-workflows.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { TextDeltas } from '../../core/ports/text-deltas.ts';
import type { SessionChanges } from '../../core/ports/session-changes.ts';
import { createChangeWatch } from '../../core/session/change-watch.ts';
import { inboundSpans } from './inbound-spans.ts';

/** The verifier of the deployment's sign-in mode, and the OIDC discovery reader the auth routes use. */
export interface ApiSignIn {
  verification: SignInVerification;
  oidcDiscovery?: ReturnType<typeof createOidcVerifier>['discovery'];
}

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
    return { verification: { mode: 'cloud-alb', verifier: createAlbVerifier({ arn: signIn.albArn, ...(options.albKeyUrlBase ? { keyUrlBase: options.albKeyUrlBase } : {}) }) } };
  }
  return { verification: { mode: 'dev-user' } };
}

/** What {@link createApiApp} is built from: booted settings, open stores, and the process's sinks. */
export interface ApiAppParts {
  env: DispatchingEnv;
  config: PlatformConfig;
  docs: DocumentStore;
  objects: ObjectStore;
  signIn: ApiSignIn;
  /** All-in-one mode: the front proxy on loopback is trusted by construction. */
  allInOne: boolean;
  /** This process's instance id (PLATFORM_INSTANCE_ID, or host-pid), shown by /api/health/ready. */
  instanceId: string;
  /** The job queue turns and environment operations are put on (absent without a queue store: they then answer 503). */
  queue?: JobQueue;
  /** The per-user counter's own connection to the queue store; omitted counts in this process. */
  rateRedis?: RedisConnection;
  /** Live text of model calls for the AG-UI streams (absent: messages are streamed whole as they are recorded). */
  textDeltas?: TextDeltas;
  /** Change notifications of chats: streams and MCP calls wait on them (absent: they read on a timer). */
  changes?: SessionChanges;
  /** DNS TXT lookups for domain verification (default: the system's resolvers). */
  txt?: TxtLookup;
  logger: Logger;
  /** Receives each access-log line. */
  printAccessLine(line: string): void;
  /**
   * The skill registries this process follows (core/skill/registries.ts; bins/api/main.ts updates them in the
   * background at startup); default: {@link apiSkillRegistries}, served from their clones and never updated.
   */
  skillRegistries?: SkillRegistries;
  /** The collection use cases (bins/api/main.ts builds them once and runs their start); default {@link apiCollections}. */
  collections?: CollectionDeps;
  /** Server spans around the endpoints' and session routes' requests (./inbound-spans.ts); true only when traces are exported. */
  tracing?: boolean;
}

/**
 * The API app (not yet listening): `app.listen({ hostname, port, maxRequestBodySize: 21 MiB })` starts it.
 * @throws PlatformError `invalid_config` for a bad PLATFORM_TRUSTED_PROXIES entry
 */
export function createApiApp(parts: ApiAppParts) {
  const { env, docs, objects, logger } = parts;
  const rules = requestRules({
    signIn: parts.signIn.verification, identity: env.identity,
    trustedProxies: parts.allInOne ? [...env.trustedProxies, '127.0.0.1', '::1'] : env.trustedProxies,
    allowedOrigins: [env.appBaseUrl, ...env.corsAllowedOrigins].filter((o): o is string => Boolean(o)),
    accessLog: env.accessLog, log: parts.printAccessLine,
    userRatePerMinute: env.userRatePerMinute, redis: parts.rateRedis, logger,
  });
  const authorOf = (request: Request) => {
    const principal = rules.principalOf(request);
    return { name: principal?.name ?? principal?.email ?? 'unknown', email: principal?.email ?? 'unknown@localhost' };
  };
  const git = createObjectStoreGitRepo({ objectStore: objects, scratchDir: env.scratchDir });
  const orgDeps = { docs, clock: systemClock, ids: cryptoIds };
  const callerOf = (request: Request) => {
    const principal = rules.requirePrincipal(request);
    return { subject: principal.id, email: principal.email, ...(principal.name ? { name: principal.name } : {}), ...(principal.managedDomain ? { managedDomain: principal.managedDomain } : {}) };
  };
  // Under dev-user this starts the default organization at once (boot); otherwise a first request gets a personal one.
  const prepareCaller = orgPreparation({ deps: orgDeps, mode: env.signIn.mode, devUser: { subject: devUserPrincipal.id, email: devUserPrincipal.email, name: devUserPrincipal.name }, logger });
  const agentDeps = {
    docs, objects, git, lease: createDocumentLease(docs, systemClock), clock: systemClock, ids: cryptoIds,
    authority: orgAgentAuthority(orgDeps), template: templateFiles(env.templateRepo), wait: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  };
  // One cache of published builds and one set of connection use cases for every route of this process.
  const builds = publishedWorkflows({ docs, objects });
  const connections = connectionDeps({
    docs, clock: systemClock, ids: cryptoIds, production: env.production, allowPrivateUrls: env.allowPrivateUrls,
  });
  // One admission (and one OIDC key cache) for the webhook, MCP and AG-UI endpoints; owner-supplied URLs guarded.
  const admission = admissionDeps({ docs, ids: cryptoIds, allowPrivateUrls: env.allowPrivateUrls });
  // One watch of chats' records for every AG-UI stream and MCP call of this process (one safety read for all).
  const watch = parts.changes ? createChangeWatch({ docs, changes: parts.changes }) : undefined;
  const endpointCalls = mcpCallDeps({
    docs, objects, clock: systemClock, ids: cryptoIds, queue: parts.queue, builds, ...(watch ? { watch } : {}),
  });
  const memberSignIn = { principalOf: rules.principalOf, signInMode: env.signIn.mode, platformOrigins: [env.appBaseUrl, ...env.corsAllowedOrigins].filter((o): o is string => Boolean(o)) };
  const semanticEnv = {
    deps: { docs, objects, git, clock: systemClock, ids: cryptoIds, authority: orgSemanticAuthority(orgDeps) },
    logger, authorOf, callerOf, prepare: prepareCaller,
  };
  const embeddedQueue = env.embeddedQueue.enabled ? { lease: createDocumentLease(docs, systemClock), instanceId: parts.instanceId } : undefined;
  // Traced: each traced request's handler runs in its server span's context (docs/decisions.md D25 § 1).
  return (parts.tracing ? new Elysia().wrap(inboundSpans) : new Elysia())
    .use(rules.plugin)
    .use(healthRoutes({ version: env.appVersion, embeddedQueue }))
    .use(authRoutes({ signIn: env.signIn, oidcDiscovery: parts.signIn.oidcDiscovery, branding: parts.config.branding, logger }))
    .use(semanticRoutes(semanticEnv))
    .use(semanticEditorRoutes(semanticEnv))
    .use(semanticPlaygroundRoutes(semanticEnv))
    .use(semanticAccessRoutes(semanticEnv))
    .use(meRoutes({ logger, callerOf, prepare: prepareCaller, signInMode: env.signIn.mode }))
    .use(orgRoutes({ deps: orgDeps, logger, callerOf, prepare: prepareCaller }))
    .use(invitationRoutes({ deps: { ...orgDeps, dnsVerification: env.identity.dnsVerification, txt: parts.txt ?? createTxtLookup() }, appBaseUrl: env.appBaseUrl, logger, callerOf, prepare: prepareCaller }))
    .use(agentRoutes({ deps: agentDeps, enqueueOperation: operationEnqueuer(parts.queue), logger, callerOf, prepare: prepareCaller }))
    .use(webhookRoutes({
      docs, builds, clock: systemClock, admission, queue: parts.queue, rateRedis: parts.rateRedis,
      clientAddress: rules.clientAddressOf, logger,
    }))
    .use(callbackRoutes({
      docs, ids: cryptoIds, builds, services: parts.config.services, queue: parts.queue,
      print: (line) => logger.info({}, line), logger,
      rateRedis: parts.rateRedis, clientAddress: rules.clientAddressOf,
    }))
    .use(mcpRoutes({
      calls: endpointCalls, admission, rateRedis: parts.rateRedis, clientAddress: rules.clientAddressOf,
      ...memberSignIn, appBaseUrl: env.appBaseUrl, version: env.appVersion, logger,
    }))
    .use(aguiRoutes({
      runs: { ...endpointCalls, now: () => Date.now(), textDeltas: parts.textDeltas },
      admission, rateRedis: parts.rateRedis, clientAddress: rules.clientAddressOf, ...memberSignIn, logger,
    }))
    .use(connectionRoutes({ deps: connections, appBaseUrl: env.appBaseUrl, deployments: connectionDeploymentHooks({ docs, clock: systemClock, ids: cryptoIds, queue: parts.queue }), logger, callerOf, prepare: prepareCaller }))
    .use(deploymentRoutes({ access: deploymentAccess({ docs, clock: systemClock, ids: cryptoIds, queue: parts.queue, scope: connections.scope }), logger, callerOf, prepare: prepareCaller }))
    .use(decisionLinkRoutes({ links: { ...endpointCalls, docs, clock: systemClock, ids: cryptoIds }, logger }))
    .use(sessionRoutes({
      deps: sessionDeps({
        docs, objects, clock: systemClock, ids: cryptoIds, queue: parts.queue, workflowOf: builds.workflowOf,
        models: parts.config.models, ...(parts.changes ? { changes: parts.changes } : {}),
      }),
      logger, callerOf, prepare: prepareCaller,
    }))
    .use(chatRoutes({ deps: { docs, builds }, logger, callerOf, prepare: prepareCaller }))
    .use(evaluationRoutes({
      deps: evaluationDeps({ docs, objects, clock: systemClock, ids: cryptoIds, queue: parts.queue, hosting: agentDeps }),
      logger, callerOf, prepare: prepareCaller,
    }))
    .use(collectionRoutes({ collections: parts.collections ?? apiCollections(parts), clientName: parts.config.branding.title, logger, callerOf, prepare: prepareCaller }))
    .use(skillRoutes({
      registries: parts.skillRegistries ?? apiSkillRegistries(parts),
      hosting: agentDeps, logger, callerOf, prepare: prepareCaller,
    }))
    .use(designRoutes({
      runs: { ...endpointCalls, hosting: agentDeps, ...(parts.config.designAgent ? { designModel: parts.config.designAgent.model } : {}) },
      stream: { ...endpointCalls, now: () => Date.now(), textDeltas: parts.textDeltas },
      logger, callerOf, prepare: prepareCaller,
    }))
    .onError(({ code }) => {
      if (code === 'NOT_FOUND') return new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such API route.' } }), { status: 404, headers: { 'content-type': 'application/json' } });
      return undefined;
    });
}

/** The collection use cases over this process's stores, secret store and OAuth client. */
export function apiCollections(parts: Pick<ApiAppParts, 'env' | 'config' | 'logger' | 'docs'>): CollectionDeps {
  return collectionDepsOf({
    docs: parts.docs, clock: systemClock, ids: cryptoIds, config: parts.config, oauth: createOAuthClient(),
    secrets: openSecretStore(parts.env.secretStore, { docs: parts.docs, clock: systemClock, ids: cryptoIds }),
    ...(parts.env.oauth2RedirectUrl ? { redirectUrl: parts.env.oauth2RedirectUrl } : {}),
    log: (line) => parts.logger.info({}, line),
  });
}

/**
 * The config's skill registries over their clones under PLATFORM_SKILL_REGISTRIES_DIR, logging through the API's
 * logger; nothing is cloned until its `update()` runs (bins/api/main.ts runs it once the API listens).
 */
export function apiSkillRegistries(parts: Pick<ApiAppParts, 'env' | 'config' | 'logger'>): SkillRegistries {
  const deps = {
    mirror: createSkillRegistryMirror(parts.env.skillRegistriesDir), clock: systemClock,
    log: (line: string, level: 'info' | 'warn') => parts.logger[level]({}, line),
  };
  return createSkillRegistries(deps, effectiveSkillRegistries(parts.config));
}
