/**
 * The catalogue of deployment settings: every environment variable the spec's table names, and the
 * groups a worker host must not hold.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables), § Rules 10, 12.
 */
import type { EnvRecord } from './env-values.ts';

/**
 * Every host setting of the spec's variable table (placeholder variables such as
 * PLATFORM_SERVICE_<ID>_TOKEN are config inputs, not host settings, and are not listed).
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export const PLATFORM_ENV_VARIABLES: readonly string[] = [
  'NODE_ENV',
  'APP_VERSION',
  'PORT',
  'API_HOST',
  'CORS_ALLOWED_ORIGINS',
  'APP_BASE_URL',
  'PLATFORM_ALLOW_NEWER_DATA',
  'PLATFORM_USER_RATE_PER_MINUTE',
  'DOCDB_URI',
  'QUEUE_URL',
  'OBJSTORE_BUCKET',
  'OBJSTORE_ACCESS_KEY_ID',
  'OBJSTORE_SECRET_ACCESS_KEY',
  'OBJSTORE_REGION',
  'OBJSTORE_ENDPOINT',
  'OBJSTORE_PREFIX',
  'OBJSTORE_FORCE_PATH_STYLE',
  'PLATFORM_SCRATCH_DIR',
  'PLATFORM_TEMPLATE_REPO',
  'PLATFORM_SKILL_REGISTRIES_DIR',
  'PLATFORM_SIGN_IN',
  'PLATFORM_OIDC_ISSUER',
  'PLATFORM_OIDC_CLIENT_ID',
  'PLATFORM_OIDC_AUDIENCE',
  'PLATFORM_OIDC_SIGN_OUT_URL',
  'PLATFORM_IDP_DB_CONNECTION',
  'PLATFORM_CLOUD_ALB_ARN',
  'PLATFORM_CLOUD_ALB_SIGN_OUT_URL',
  'PLATFORM_CLOUD_ALB_SESSION_COOKIE',
  'PLATFORM_MANAGED_DOMAIN_CLAIM',
  'PLATFORM_EMAIL_VERIFICATION',
  'PLATFORM_SECRET_STORE',
  'MASTER_KEY',
  'PLATFORM_CLOUD_SECRETS_REGION',
  'PLATFORM_CLOUD_SECRETS_PREFIX',
  'PLATFORM_CLOUD_SECRETS_KMS_KEY_ID',
  'PLATFORM_CLOUD_SECRETS_ENDPOINT',
  'OAUTH2_REDIRECT_URL',
  'PLATFORM_DNS_VERIFICATION',
  'PLATFORM_ALLOW_PRIVATE_URLS',
  'PLATFORM_TRIGGER_POLL_CONCURRENCY',
  'PLATFORM_WORKER_TURN_MEMORY_MB',
  'PLATFORM_WORKER_CALL_MEMORY_MB',
  'PLATFORM_WORKER_TURN_SECONDS',
  'PLATFORM_WORKER_CALL_SECONDS',
  'PLATFORM_WORKER_TURN_SLOTS',
  'PLATFORM_WORKER_CALL_SLOTS',
  'PLATFORM_WORKER_INSPECT',
  'PLATFORM_WORKER_ISOLATION',
  'PLATFORM_WORKER_HOST',
  'PLATFORM_WORKER_HOST_KEY',
  'PLATFORM_WORKER_HOST_PORT',
  'PLATFORM_WORKER_HOST_BIND',
  'PLATFORM_CONFIG',
  'PLATFORM_CONFIG_FILE',
  'PLATFORM_PROMPT_CACHE',
  'PLATFORM_PROMPT_CACHE_TTL',
  'PLATFORM_API_BASE_URL',
  'PLATFORM_API_KEY',
  'PLATFORM_MODEL',
  'ACCESS_LOG',
  'API_PORT',
  'PLATFORM_EMBEDDED_QUEUE_MAXMEMORY',
  'PLATFORM_EMBEDDED_QUEUE',
  'PLATFORM_TRUSTED_PROXIES',
  'MCP_RATE_LIMIT_MAX',
  'WEB_API_BASE_URL',
  'PLATFORM_STOP_GRACE_SECONDS',
  'PLATFORM_FAILED_JOBS_KEPT',
  'PLATFORM_FAILED_JOBS_DAYS',
  'PLATFORM_SESSION_RETENTION_DAYS',
  'PLATFORM_DELIVERY_RETENTION_DAYS',
  'PLATFORM_CALL_LOG_RETENTION_DAYS',
];

/**
 * Why a worker host refuses a variable.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export type WorkerHostHolding = 'data store address' | 'key' | 'config' | 'cloud credential';

const holdingsByName: Record<string, WorkerHostHolding> = {
  DOCDB_URI: 'data store address',
  QUEUE_URL: 'data store address',
  MASTER_KEY: 'key',
  PLATFORM_API_KEY: 'key',
  PLATFORM_DESIGN_AGENT_API_KEY: 'key',
  PLATFORM_CONFIG: 'config',
  PLATFORM_CONFIG_FILE: 'config',
  AWS_ACCESS_KEY_ID: 'cloud credential',
  AWS_SECRET_ACCESS_KEY: 'cloud credential',
  AWS_SESSION_TOKEN: 'cloud credential',
  AWS_SECURITY_TOKEN: 'cloud credential',
  AWS_PROFILE: 'cloud credential',
  AWS_ROLE_ARN: 'cloud credential',
  AWS_WEB_IDENTITY_TOKEN_FILE: 'cloud credential',
  AWS_SHARED_CREDENTIALS_FILE: 'cloud credential',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: 'cloud credential',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: 'cloud credential',
  AWS_CONTAINER_AUTHORIZATION_TOKEN: 'cloud credential',
  AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: 'cloud credential',
  GOOGLE_APPLICATION_CREDENTIALS: 'cloud credential',
  AZURE_CLIENT_SECRET: 'cloud credential',
  AZURE_CLIENT_CERTIFICATE_PATH: 'cloud credential',
  AZURE_FEDERATED_TOKEN_FILE: 'cloud credential',
  AZURE_USERNAME: 'cloud credential',
  AZURE_PASSWORD: 'cloud credential',
};

const holdingsByPattern: ReadonlyArray<[RegExp, WorkerHostHolding]> = [
  [/^OBJSTORE_/, 'data store address'],
  [/^PLATFORM_CLOUD_SECRETS_/, 'data store address'],
  [/^PLATFORM_SERVICE_[A-Z0-9_]+_TOKEN$/, 'key'],
  [/^PLATFORM_OAUTH_APP_[A-Z0-9_]+_CLIENT_SECRET$/, 'key'],
];

/**
 * What a variable would give a worker host that it must not hold, or undefined when the host leaves it alone.
 * @param name - an environment variable name
 * @returns the holding kind (data store address, key, config, cloud credential) or undefined
 *
 * Source: spec/platform-service.md § Rules 10
 */
export function workerHostHolding(name: string): WorkerHostHolding | undefined {
  return holdingsByName[name] ?? holdingsByPattern.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * Names of set (non-empty) variables in `env` that a worker host must not hold, sorted.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export function workerHostOffenders(env: EnvRecord): string[] {
  return Object.keys(env)
    .filter((name) => (env[name] ?? '').trim() !== '' && workerHostHolding(name) !== undefined)
    .sort();
}

const normalise = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const hostSettingKeys = new Map<string, string>(
  PLATFORM_ENV_VARIABLES.flatMap((name) => [
    [normalise(name), name] as [string, string],
    [normalise(name.replace(/^PLATFORM_/, '')), name] as [string, string],
  ]),
);

/**
 * The environment variable a config key stands for when the key is a host setting written in the config
 * (`port`, `docdbUri`, `masterKey`, `signIn`, `PLATFORM_SIGN_IN` …: compared ignoring case, `_` and `-`,
 * with or without the PLATFORM_ prefix); undefined for any other key.
 *
 * Source: spec/platform-service.md § Rules 12
 */
export function hostSettingFor(configKey: string): string | undefined {
  return hostSettingKeys.get(normalise(configKey));
}
