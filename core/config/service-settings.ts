/**
 * Value rules of the settings the API, the dispatcher and semantic-mcp share beyond stores, sign-in,
 * secrets and workers: HTTP, directories, models, logging, the embedded queue store.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables).
 */
import {
  type EnvRecord,
  flag,
  invalid,
  oneOf,
  optional,
  port,
  positiveInteger,
  trueOrFalse,
  url,
} from './env-values.ts';
import { parseEmbeddedQueueMaxMemory } from './embedded-queue-settings.ts';
import { addressRangeList, bindAddress, originList, urlAsWritten } from './net-values.ts';
import { NodeEnv, type ServiceEnv } from './platform-env-model.ts';
import { parseStoreSettings } from './store-settings.ts';

/** Default browser origin. Source: spec/platform-service.md § Deployment settings (CORS_ALLOWED_ORIGINS) */
export const DEFAULT_CORS_ORIGIN = 'http://localhost:5173';
/** Default queue store outside production. Source: spec/platform-service.md § Deployment settings (QUEUE_URL) */
export const DEFAULT_QUEUE_URL = 'redis://localhost:6379';
/** The one OAuth2 callback path. Source: spec/platform-service.md § Rules 17 */
export const OAUTH2_CALLBACK_PATH = '/api/oauth2/callback';

type Warnings = string[];

/**
 * NODE_ENV: development (default), test or production.
 * @throws PlatformError `invalid_config` naming NODE_ENV
 *
 * Source: spec/platform-service.md § Deployment settings (NODE_ENV)
 */
export function parseNodeEnv(env: EnvRecord): NodeEnv {
  return oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
}

/**
 * APP_VERSION (default dev): letters, digits and . _ + - (X.Y.Z, unstable-<sha>, pr-<number>, dev), at most 64
 * characters.
 * @throws PlatformError `invalid_config` naming APP_VERSION
 *
 * Source: spec/platform-service.md § Deployment settings (APP_VERSION); § Versioning
 */
export function parseAppVersion(env: EnvRecord): string {
  const version = optional(env, 'APP_VERSION') ?? 'dev';
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(version)) {
    throw invalid('APP_VERSION', 'must be a release name such as 1.2.3, unstable-<sha>, pr-<number> or dev');
  }
  return version;
}

/**
 * Ports, bind address, origins, rate ceilings, proxies, access log, OAuth2 redirect.
 * @param warnings - receives a line for stderr when ACCESS_LOG is not errors, all or off
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings
 */
export function parseHttpSettings(env: EnvRecord, warnings: Warnings) {
  const corsAllowedOrigins = originList(env, 'CORS_ALLOWED_ORIGINS', [DEFAULT_CORS_ORIGIN]);
  const appBaseUrl = urlAsWritten(env, 'APP_BASE_URL')?.replace(/\/+$/, '') ?? corsAllowedOrigins[0];
  return {
    port: port(env, 'PORT', 3001),
    apiHost: bindAddress(env, 'API_HOST', '0.0.0.0'),
    apiPort: port(env, 'API_PORT', 3001),
    corsAllowedOrigins,
    ...(appBaseUrl === undefined ? {} : { appBaseUrl }),
    userRatePerMinute: positiveInteger(env, 'PLATFORM_USER_RATE_PER_MINUTE', 60),
    mcpRateLimitMax: positiveInteger(env, 'MCP_RATE_LIMIT_MAX', 120),
    trustedProxies: addressRangeList(env, 'PLATFORM_TRUSTED_PROXIES'),
    accessLog: parseAccessLog(env, warnings),
    ...parseOauth2Redirect(env),
  };
}

/**
 * Stores (QUEUE_URL defaults to redis://localhost:6379 outside production) and the embedded queue store.
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, QUEUE_URL, OBJSTORE_*, PLATFORM_EMBEDDED_QUEUE*)
 */
export function parseStoreAndQueue(
  env: EnvRecord,
  production: boolean,
): Pick<ServiceEnv, 'stores' | 'embeddedQueue' | 'allowNewerData'> {
  const stores = parseStoreSettings(env);
  const queueUrl = stores.queueUrl ?? (production ? undefined : DEFAULT_QUEUE_URL);
  const maxMemory = parseEmbeddedQueueMaxMemory(env);
  return {
    stores: { ...stores, ...(queueUrl === undefined ? {} : { queueUrl }) },
    embeddedQueue: { enabled: flag(env, 'PLATFORM_EMBEDDED_QUEUE', false), maxMemory },
    allowNewerData: trueOrFalse(env, 'PLATFORM_ALLOW_NEWER_DATA', false),
  };
}

/**
 * Directories: scratch (<tmpDir>/cairn), template repository (.cairn/template), skill registry clones
 * (.cairn/skill-registries), kept as written (relative paths resolve where the spec says, in the bin).
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SCRATCH_DIR, PLATFORM_TEMPLATE_REPO,
 * PLATFORM_SKILL_REGISTRIES_DIR)
 */
export function parseDirectories(
  env: EnvRecord,
  tmpDir: string,
): Pick<ServiceEnv, 'scratchDir' | 'templateRepo' | 'skillRegistriesDir'> {
  return {
    scratchDir: optional(env, 'PLATFORM_SCRATCH_DIR') ?? `${tmpDir.replace(/\/+$/, '')}/cairn`,
    templateRepo: optional(env, 'PLATFORM_TEMPLATE_REPO') ?? '.cairn/template',
    skillRegistriesDir: optional(env, 'PLATFORM_SKILL_REGISTRIES_DIR') ?? '.cairn/skill-registries',
  };
}

/**
 * Prompt caching (on, 5m) and private outbound URLs (false; always false in production, with a warning when set).
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_PROMPT_CACHE*, PLATFORM_ALLOW_PRIVATE_URLS)
 */
export function parseWorkerFacingSettings(env: EnvRecord, production: boolean, warnings: Warnings) {
  const allowPrivateUrls = trueOrFalse(env, 'PLATFORM_ALLOW_PRIVATE_URLS', false);
  if (allowPrivateUrls && production) {
    warnings.push('PLATFORM_ALLOW_PRIVATE_URLS is ignored when NODE_ENV is production: outbound URLs stay guarded.');
  }
  return {
    promptCache: flag(env, 'PLATFORM_PROMPT_CACHE', true),
    promptCacheTtl: oneOf(env, 'PLATFORM_PROMPT_CACHE_TTL', ['5m', '1h'] as const, '5m'),
    allowPrivateUrls: allowPrivateUrls && !production,
  };
}

/**
 * The rubric model (PLATFORM_API_BASE_URL, PLATFORM_API_KEY, PLATFORM_MODEL), set together or not at all
 * (the boot rule checks the pairing); undefined when none is set.
 * @throws PlatformError `invalid_config` naming PLATFORM_API_BASE_URL when it is not a URL
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_API_BASE_URL, PLATFORM_API_KEY, PLATFORM_MODEL)
 */
export function parseRubricModel(env: EnvRecord): ServiceEnv['rubricModel'] {
  const apiBaseUrl = urlAsWritten(env, 'PLATFORM_API_BASE_URL');
  const apiKey = optional(env, 'PLATFORM_API_KEY');
  const model = optional(env, 'PLATFORM_MODEL');
  return apiBaseUrl && apiKey && model ? { apiBaseUrl, apiKey, model } : undefined;
}

function parseAccessLog(env: EnvRecord, warnings: Warnings): 'errors' | 'all' | 'off' {
  const value = optional(env, 'ACCESS_LOG');
  if (value === undefined || value === 'errors' || value === 'all' || value === 'off') return value ?? 'errors';
  warnings.push('ACCESS_LOG must be errors, all or off; reading it as errors.');
  return 'errors';
}

function parseOauth2Redirect(env: EnvRecord): { oauth2RedirectUrl?: string } {
  const parsed = url(env, 'OAUTH2_REDIRECT_URL', ['http', 'https']);
  if (parsed === undefined) return {};
  if (parsed.pathname !== OAUTH2_CALLBACK_PATH) {
    throw invalid('OAUTH2_REDIRECT_URL', `must be a URL whose path is ${OAUTH2_CALLBACK_PATH}`);
  }
  return { oauth2RedirectUrl: optional(env, 'OAUTH2_REDIRECT_URL') as string };
}
