/**
 * The routes of the API app, in the order bins/api/app.ts mounts them, and what they share: one cache of published
 * builds, one set of connection use cases, one admission of the endpoints, one watch of chats' records, the member
 * sign-in helpers. Each group is a list of Elysia plugins; app.ts puts them behind the request rules.
 *
 * Source: spec/platform-service.md § Endpoints, § Authentication; docs/architecture.md § Processes.
 */
import type { AnyElysia } from 'elysia';
import { createObjectStoreGitRepo } from '../../core/adapters/git/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { createTxtLookup } from '../../core/adapters/dns/txt-lookup.ts';
import { operationEnqueuer } from '../../core/agent/operations-model.ts';
import { devUserPrincipal } from '../../core/auth/principal.ts';
import { orgAgentAuthority } from '../../core/boot/agent-authority.ts';
import { admissionDeps, connectionDeps } from '../../core/boot/connection-wiring.ts';
import { mcpCallDeps } from '../../core/boot/endpoint-wiring.ts';
import { evaluationDeps } from '../../core/boot/evaluation-wiring.ts';
import { orgSemanticAuthority } from '../../core/boot/semantic-authority.ts';
import { sessionDeps } from '../../core/boot/session-wiring.ts';
import { connectionDeploymentHooks, deploymentAccess } from '../../core/deployment/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { publishedWorkflows } from '../../core/session/build-workflows.ts';
import { createChangeWatch } from '../../core/session/change-watch.ts';
import { agentRoutes } from './agent-routes.ts';
import { templateFiles } from './agent-template.ts';
import { aguiRoutes } from './agui-routes.ts';
import { type ApiAppParts, apiCollections, apiSkillRegistries } from './app-parts.ts';
import { callbackRoutes } from './callback-routes.ts';
import { chatRoutes } from './chat-routes.ts';
import { collectionRoutes } from './collection-routes.ts';
import { connectionRoutes } from './connection-routes.ts';
import { decisionLinkRoutes } from './decision-link-routes.ts';
import { deploymentRoutes } from './deployment-routes.ts';
import { designRoutes } from './design-routes.ts';
import { evaluationRoutes } from './evaluation-routes.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { mcpRoutes } from './mcp-routes.ts';
import { meRoutes } from './me-routes.ts';
import { orgPreparation, orgRoutes } from './org-routes.ts';
import { requestRules } from './request-rules/index.ts';
import { semanticAccessRoutes } from './semantic-access-routes.ts';
import { semanticEditorRoutes } from './semantic-editor-routes.ts';
import { semanticPlaygroundRoutes } from './semantic-playground-routes.ts';
import { semanticRoutes } from './semantic-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { skillRoutes } from './skill-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';

/** The request rules of the app: sign-in, host and origin checks, body limits, access log, per-user ceiling. */
export function apiRequestRules(parts: ApiAppParts) {
  const { env, logger } = parts;
  return requestRules({
    signIn: parts.signIn.verification,
    identity: env.identity,
    trustedProxies: parts.allInOne ? [...env.trustedProxies, '127.0.0.1', '::1'] : env.trustedProxies,
    allowedOrigins: [env.appBaseUrl, ...env.corsAllowedOrigins].filter((o): o is string => Boolean(o)),
    accessLog: env.accessLog,
    log: parts.printAccessLine,
    userRatePerMinute: env.userRatePerMinute,
    redis: parts.rateRedis,
    logger,
  });
}

/** The member's side of every signed-in route: the logger, the caller of a request, the caller's preparation. */
function memberSide(parts: ApiAppParts, rules: ReturnType<typeof apiRequestRules>) {
  const { env, logger } = parts;
  const orgDeps = { docs: parts.docs, clock: systemClock, ids: cryptoIds };
  const callerOf = (request: Request) => {
    const principal = rules.requirePrincipal(request);
    return {
      subject: principal.id,
      email: principal.email,
      ...(principal.name ? { name: principal.name } : {}),
      ...(principal.managedDomain ? { managedDomain: principal.managedDomain } : {}),
    };
  };
  // Under dev-user this starts the default organization at once (boot); otherwise a first request gets a personal one.
  const devUser = { subject: devUserPrincipal.id, email: devUserPrincipal.email, name: devUserPrincipal.name };
  const prepare = orgPreparation({ deps: orgDeps, mode: env.signIn.mode, devUser, logger });
  return { orgDeps, member: { logger, callerOf, prepare } };
}

/** What the routes share, built once per app. */
export type ApiContext = ReturnType<typeof apiContext>;

/** Builds {@link ApiContext} over the app's parts and its request rules. */
export function apiContext(parts: ApiAppParts, rules: ReturnType<typeof apiRequestRules>) {
  const { env, docs, objects } = parts;
  const { orgDeps, member } = memberSide(parts, rules);
  const git = createObjectStoreGitRepo({ objectStore: objects, scratchDir: env.scratchDir });
  const agentDeps = {
    docs,
    objects,
    git,
    lease: createDocumentLease(docs, systemClock),
    clock: systemClock,
    ids: cryptoIds,
    authority: orgAgentAuthority(orgDeps),
    template: templateFiles(env.templateRepo),
    wait: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  };
  // One cache of published builds and one set of connection use cases for every route of this process.
  const builds = publishedWorkflows({ docs, objects });
  const connections = connectionDeps({
    docs,
    clock: systemClock,
    ids: cryptoIds,
    production: env.production,
    allowPrivateUrls: env.allowPrivateUrls,
  });
  // One admission (and one OIDC key cache) for the webhook, MCP and AG-UI endpoints; owner-supplied URLs guarded.
  const admission = admissionDeps({ docs, ids: cryptoIds, allowPrivateUrls: env.allowPrivateUrls });
  // One watch of chats' records for every AG-UI stream and MCP call of this process (one safety read for all).
  const watch = parts.changes ? createChangeWatch({ docs, changes: parts.changes }) : undefined;
  const endpointCalls = mcpCallDeps({
    docs,
    objects,
    clock: systemClock,
    ids: cryptoIds,
    queue: parts.queue,
    builds,
    ...(watch ? { watch } : {}),
  });
  const platformOrigins = [env.appBaseUrl, ...env.corsAllowedOrigins].filter((o): o is string => Boolean(o));
  const memberSignIn = { principalOf: rules.principalOf, signInMode: env.signIn.mode, platformOrigins };
  return { rules, orgDeps, member, git, agentDeps, builds, connections, admission, endpointCalls, memberSignIn };
}

/** The semantic, account, organization and agent routes (signed-in members). */
export function memberRoutes(parts: ApiAppParts, ctx: ApiContext): AnyElysia[] {
  const { env, docs, objects } = parts;
  const { orgDeps, member } = ctx;
  const authorOf = (request: Request) => {
    const principal = ctx.rules.principalOf(request);
    return { name: principal?.name ?? principal?.email ?? 'unknown', email: principal?.email ?? 'unknown@localhost' };
  };
  const semanticEnv = {
    deps: { docs, objects, git: ctx.git, clock: systemClock, ids: cryptoIds, authority: orgSemanticAuthority(orgDeps) },
    logger: member.logger,
    authorOf,
    callerOf: member.callerOf,
    prepare: member.prepare,
  };
  const txt = parts.txt ?? createTxtLookup();
  const invitationDeps = { ...orgDeps, dnsVerification: env.identity.dnsVerification, txt };
  return [
    semanticRoutes(semanticEnv),
    semanticEditorRoutes(semanticEnv),
    semanticPlaygroundRoutes(semanticEnv),
    semanticAccessRoutes(semanticEnv),
    meRoutes({ ...member, signInMode: env.signIn.mode }),
    orgRoutes({ deps: orgDeps, ...member }),
    invitationRoutes({ deps: invitationDeps, appBaseUrl: env.appBaseUrl, ...member }),
    agentRoutes({ deps: ctx.agentDeps, enqueueOperation: operationEnqueuer(parts.queue), ...member }),
  ];
}

/** The incoming endpoints: webhook deliveries, callbacks, MCP and AG-UI. */
export function endpointRoutes(parts: ApiAppParts, ctx: ApiContext): AnyElysia[] {
  const { env, docs, logger } = parts;
  const { rules, builds, admission, endpointCalls, memberSignIn } = ctx;
  return [
    webhookRoutes({
      docs,
      builds,
      clock: systemClock,
      admission,
      queue: parts.queue,
      rateRedis: parts.rateRedis,
      clientAddress: rules.clientAddressOf,
      logger,
    }),
    callbackRoutes({
      docs,
      ids: cryptoIds,
      builds,
      services: parts.config.services,
      queue: parts.queue,
      print: (line) => logger.info({}, line),
      logger,
      rateRedis: parts.rateRedis,
      clientAddress: rules.clientAddressOf,
    }),
    mcpRoutes({
      calls: endpointCalls,
      admission,
      rateRedis: parts.rateRedis,
      clientAddress: rules.clientAddressOf,
      ...memberSignIn,
      appBaseUrl: env.appBaseUrl,
      version: env.appVersion,
      logger,
    }),
    aguiRoutes({
      runs: { ...endpointCalls, now: () => Date.now(), textDeltas: parts.textDeltas },
      admission,
      rateRedis: parts.rateRedis,
      clientAddress: rules.clientAddressOf,
      ...memberSignIn,
      logger,
    }),
  ];
}

/** Connections, deployments, decision links, sessions, chats, evaluations, collections, skills and design chats. */
export function platformRoutes(parts: ApiAppParts, ctx: ApiContext): AnyElysia[] {
  const { env, docs, objects } = parts;
  const { member, agentDeps, endpointCalls } = ctx;
  const stores = { docs, clock: systemClock, ids: cryptoIds, queue: parts.queue };
  const designModel = parts.config.designAgent ? { designModel: parts.config.designAgent.model } : {};
  return [
    connectionRoutes({
      deps: ctx.connections,
      appBaseUrl: env.appBaseUrl,
      deployments: connectionDeploymentHooks(stores),
      ...member,
    }),
    deploymentRoutes({ access: deploymentAccess({ ...stores, scope: ctx.connections.scope }), ...member }),
    decisionLinkRoutes({
      links: { ...endpointCalls, docs, clock: systemClock, ids: cryptoIds },
      logger: member.logger,
    }),
    sessionRoutes({
      deps: sessionDeps({
        docs,
        objects,
        clock: systemClock,
        ids: cryptoIds,
        queue: parts.queue,
        workflowOf: ctx.builds.workflowOf,
        models: parts.config.models,
        ...(parts.changes ? { changes: parts.changes } : {}),
      }),
      ...member,
    }),
    chatRoutes({ deps: { docs, builds: ctx.builds }, ...member }),
    evaluationRoutes({ deps: evaluationDeps({ ...stores, objects, hosting: agentDeps }), ...member }),
    collectionRoutes({
      collections: parts.collections ?? apiCollections(parts),
      clientName: parts.config.branding.title,
      ...member,
    }),
    skillRoutes({ registries: parts.skillRegistries ?? apiSkillRegistries(parts), hosting: agentDeps, ...member }),
    designRoutes({
      runs: { ...endpointCalls, hosting: agentDeps, ...designModel },
      stream: { ...endpointCalls, now: () => Date.now(), textDeltas: parts.textDeltas },
      ...member,
    }),
  ];
}
