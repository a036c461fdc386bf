/**
 * What the API app is built from (booted settings, open stores, the process's sinks) and the defaults of its
 * optional parts: the collection use cases and the skill registries.
 *
 * Source: spec/platform-service.md § Endpoints, § Authentication; docs/architecture.md § Processes.
 */
import type { RedisConnection } from '../../core/adapters/redis/index.ts';
import type { createOidcVerifier } from '../../core/adapters/oidc/index.ts';
import { createOAuthClient } from '../../core/adapters/oauth/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { createSkillRegistryMirror } from '../../core/adapters/git/skill-registry-mirror.ts';
import { collectionDepsOf } from '../../core/boot/collection-access.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import type { CollectionDeps } from '../../core/collection/index.ts';
import { effectiveSkillRegistries, type PlatformConfig } from '../../core/config/config-model.ts';
import type { DispatchingEnv } from '../../core/config/platform-env-model.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { ObjectStore } from '../../core/ports/object-store.ts';
import type { SessionChanges } from '../../core/ports/session-changes.ts';
import type { TextDeltas } from '../../core/ports/text-deltas.ts';
import type { TxtLookup } from '../../core/ports/txt-lookup.ts';
import { createSkillRegistries, type SkillRegistries } from '../../core/skill/registries.ts';
import type { SignInVerification } from './request-rules/index.ts';

/** The verifier of the deployment's sign-in mode, and the OIDC discovery reader the auth routes use. */
export interface ApiSignIn {
  verification: SignInVerification;
  oidcDiscovery?: ReturnType<typeof createOidcVerifier>['discovery'];
}

/** What createApiApp (./app.ts) is built from: booted settings, open stores, and the process's sinks. */
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
  /**
   * The collection use cases (bins/api/main.ts builds them once and runs their start); default
   * {@link apiCollections}.
   */
  collections?: CollectionDeps;
  /**
   * Server spans around the endpoints' and session routes' requests (./inbound-spans.ts); true only when traces are
   * exported.
   */
  tracing?: boolean;
}

/** The collection use cases over this process's stores, secret store and OAuth client. */
export function apiCollections(parts: Pick<ApiAppParts, 'env' | 'config' | 'logger' | 'docs'>): CollectionDeps {
  return collectionDepsOf({
    docs: parts.docs,
    clock: systemClock,
    ids: cryptoIds,
    config: parts.config,
    oauth: createOAuthClient(),
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
    mirror: createSkillRegistryMirror(parts.env.skillRegistriesDir),
    clock: systemClock,
    log: (line: string, level: 'info' | 'warn') => parts.logger[level]({}, line),
  };
  return createSkillRegistries(deps, effectiveSkillRegistries(parts.config));
}
