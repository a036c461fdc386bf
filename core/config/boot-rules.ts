/**
 * Cross-field boot rules of the deployment settings, one small function per rule of the spec's table.
 * Each reads the plain environment record and throws PlatformError `invalid_config` whose first line
 * names the variable (never its value).
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules).
 */
import { commaList, type EnvRecord, flag, invalid, optional } from './env-values.ts';
import type { ProcessRole } from './platform-env-model.ts';

const isSet = (env: EnvRecord, name: string) => optional(env, name) !== undefined;
const setNames = (env: EnvRecord, pattern: RegExp) =>
  Object.keys(env).filter((name) => pattern.test(name) && isSet(env, name)).sort();

/**
 * Always required: DOCDB_URI and OBJSTORE_BUCKET.
 * @throws PlatformError `invalid_config` naming the first missing variable
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: always required)
 */
export function requireStoreAddresses(env: EnvRecord): void {
  if (!isSet(env, 'DOCDB_URI')) {
    throw invalid(
      'DOCDB_URI',
      'is required: set a MongoDB connection string (mongodb:// or mongodb+srv://) or sqlite:<path> for the ' +
        'embedded store',
    );
  }
  if (!isSet(env, 'OBJSTORE_BUCKET')) {
    throw invalid(
      'OBJSTORE_BUCKET',
      'is required: name the bucket (or, with a file:// endpoint, the directory under it) that holds every object',
    );
  }
}

/**
 * Both or neither: OBJSTORE_ACCESS_KEY_ID and OBJSTORE_SECRET_ACCESS_KEY (neither: the host's default credential
 * chain).
 * @throws PlatformError `invalid_config` naming the one that is missing
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: both or neither)
 */
export function requireObjectStoreKeyPair(env: EnvRecord): void {
  const keyId = isSet(env, 'OBJSTORE_ACCESS_KEY_ID');
  if (keyId === isSet(env, 'OBJSTORE_SECRET_ACCESS_KEY')) return;
  throw invalid(
    keyId ? 'OBJSTORE_SECRET_ACCESS_KEY' : 'OBJSTORE_ACCESS_KEY_ID',
    'must be set together with its pair (both or neither)',
  );
}

/**
 * In production PLATFORM_SIGN_IN is required and is oidc or cloud-alb, never the dev user.
 * @param production - NODE_ENV is production
 * @throws PlatformError `invalid_config` naming PLATFORM_SIGN_IN
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required when NODE_ENV is production)
 */
export function requireProductionSignIn(env: EnvRecord, production: boolean): void {
  if (!production) return;
  const mode = optional(env, 'PLATFORM_SIGN_IN');
  if (mode === undefined) {
    throw invalid('PLATFORM_SIGN_IN', 'is required when NODE_ENV is production: set oidc or cloud-alb');
  }
  if (mode !== 'oidc' && mode !== 'cloud-alb') {
    throw invalid(
      'PLATFORM_SIGN_IN',
      'must be oidc or cloud-alb when NODE_ENV is production (the dev user is refused)',
    );
  }
}

/**
 * In production MASTER_KEY is required unless PLATFORM_SECRET_STORE is cloud-secrets-manager.
 * @throws PlatformError `invalid_config` naming MASTER_KEY
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required when NODE_ENV is production)
 */
export function requireProductionMasterKey(env: EnvRecord, production: boolean): void {
  if (!production || optional(env, 'PLATFORM_SECRET_STORE') === 'cloud-secrets-manager') return;
  if (!isSet(env, 'MASTER_KEY')) {
    throw invalid('MASTER_KEY', 'is required when NODE_ENV is production with the db secret store: 32 bytes, base64');
  }
}

/**
 * In production QUEUE_URL is required (the all-in-one container sets it itself when it runs its own store).
 * @throws PlatformError `invalid_config` naming QUEUE_URL
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required when NODE_ENV is production)
 */
export function requireProductionQueue(env: EnvRecord, production: boolean): void {
  if (production && !isSet(env, 'QUEUE_URL')) {
    throw invalid('QUEUE_URL', 'is required when NODE_ENV is production: a redis:// or rediss:// URL');
  }
}

/**
 * With PLATFORM_SIGN_IN=oidc: PLATFORM_OIDC_ISSUER and PLATFORM_OIDC_CLIENT_ID are required.
 * @throws PlatformError `invalid_config` naming the first missing variable
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required with PLATFORM_SIGN_IN=oidc)
 */
export function requireOidcSettings(env: EnvRecord): void {
  if (optional(env, 'PLATFORM_SIGN_IN') !== 'oidc') return;
  for (const name of ['PLATFORM_OIDC_ISSUER', 'PLATFORM_OIDC_CLIENT_ID']) {
    if (!isSet(env, name)) throw invalid(name, 'is required with PLATFORM_SIGN_IN=oidc');
  }
}

/**
 * With PLATFORM_SIGN_IN=cloud-alb: PLATFORM_CLOUD_ALB_ARN and PLATFORM_CLOUD_ALB_SIGN_OUT_URL are required.
 * @throws PlatformError `invalid_config` naming the first missing variable
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required with PLATFORM_SIGN_IN=cloud-alb)
 */
export function requireCloudAlbSettings(env: EnvRecord): void {
  if (optional(env, 'PLATFORM_SIGN_IN') !== 'cloud-alb') return;
  for (const name of ['PLATFORM_CLOUD_ALB_ARN', 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL']) {
    if (!isSet(env, name)) throw invalid(name, 'is required with PLATFORM_SIGN_IN=cloud-alb');
  }
}

/**
 * With PLATFORM_SECRET_STORE=cloud-secrets-manager: PLATFORM_CLOUD_SECRETS_REGION is required.
 * @throws PlatformError `invalid_config` naming PLATFORM_CLOUD_SECRETS_REGION
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: required with
 * PLATFORM_SECRET_STORE=cloud-secrets-manager)
 */
export function requireCloudSecretsSettings(env: EnvRecord): void {
  if (optional(env, 'PLATFORM_SECRET_STORE') !== 'cloud-secrets-manager') return;
  if (!isSet(env, 'PLATFORM_CLOUD_SECRETS_REGION')) {
    throw invalid('PLATFORM_CLOUD_SECRETS_REGION', 'is required with PLATFORM_SECRET_STORE=cloud-secrets-manager');
  }
}

/**
 * Only the named sign-in mode's variables: PLATFORM_OIDC_* or PLATFORM_IDP_* without oidc, or
 * PLATFORM_CLOUD_ALB_* without cloud-alb, refuses the start.
 * @throws PlatformError `invalid_config` naming every such variable that is set
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: only the named mode's variables); §
 * Authentication rule 2
 */
export function refuseOtherSignInModeVariables(env: EnvRecord): void {
  const mode = optional(env, 'PLATFORM_SIGN_IN');
  const oidc = mode === 'oidc' ? [] : setNames(env, /^PLATFORM_(OIDC|IDP)_/);
  if (oidc.length > 0) {
    throw invalid(
      oidc.join(', '),
      `${oidc.length > 1 ? 'are' : 'is'} set but PLATFORM_SIGN_IN is not oidc: unset ${
        oidc.length > 1 ? 'them' : 'it'
      } or choose oidc`,
    );
  }
  const alb = mode === 'cloud-alb' ? [] : setNames(env, /^PLATFORM_CLOUD_ALB_/);
  if (alb.length > 0) {
    throw invalid(
      alb.join(', '),
      `${alb.length > 1 ? 'are' : 'is'} set but PLATFORM_SIGN_IN is not cloud-alb: unset ${
        alb.length > 1 ? 'them' : 'it'
      } or choose cloud-alb`,
    );
  }
}

/**
 * Only the named secret store's variables: MASTER_KEY with the cloud secret store, or a
 * PLATFORM_CLOUD_SECRETS_* variable without it, refuses the start.
 * @throws PlatformError `invalid_config` naming every such variable that is set
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: only the named store's variables)
 */
export function refuseOtherSecretStoreVariables(env: EnvRecord): void {
  const cloud = optional(env, 'PLATFORM_SECRET_STORE') === 'cloud-secrets-manager';
  if (cloud && isSet(env, 'MASTER_KEY')) {
    throw invalid(
      'MASTER_KEY',
      'is set but PLATFORM_SECRET_STORE is cloud-secrets-manager, which uses no master key: unset it',
    );
  }
  const names = cloud ? [] : setNames(env, /^PLATFORM_CLOUD_SECRETS_/);
  if (names.length > 0) {
    throw invalid(
      names.join(', '),
      `${names.length > 1 ? 'are' : 'is'} set but PLATFORM_SECRET_STORE is not cloud-secrets-manager: unset ${
        names.length > 1 ? 'them' : 'it'
      } or choose that store`,
    );
  }
}

/**
 * PLATFORM_WORKER_INSPECT on is refused in production (it drops the workers' permission model).
 * @throws PlatformError `invalid_config` naming PLATFORM_WORKER_INSPECT
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_INSPECT)
 */
export function refuseWorkerInspectInProduction(env: EnvRecord, production: boolean): void {
  if (production && flag(env, 'PLATFORM_WORKER_INSPECT', false)) {
    throw invalid('PLATFORM_WORKER_INSPECT', 'must be off when NODE_ENV is production');
  }
}

/**
 * PLATFORM_API_BASE_URL, PLATFORM_API_KEY and PLATFORM_MODEL are set together or not at all.
 * @throws PlatformError `invalid_config` naming the first missing variable of the three
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_API_BASE_URL, PLATFORM_API_KEY, PLATFORM_MODEL)
 */
export function requireRubricModelTogether(env: EnvRecord): void {
  const names = ['PLATFORM_API_BASE_URL', 'PLATFORM_API_KEY', 'PLATFORM_MODEL'];
  const missing = names.filter((name) => !isSet(env, name));
  if (missing.length === 0 || missing.length === names.length) return;
  throw invalid(
    missing[0],
    `is required together with ${names.filter((name) => !missing.includes(name)).join(' and ')} (all three or none)`,
  );
}

/**
 * A dispatching process (API, dispatcher) needs a public origin: APP_BASE_URL, or a first
 * CORS_ALLOWED_ORIGINS entry to default to (unset CORS_ALLOWED_ORIGINS defaults to http://localhost:5173).
 * @throws PlatformError `invalid_config` naming APP_BASE_URL
 *
 * Source: spec/platform-service.md § Deployment settings (APP_BASE_URL: needed by API and dispatcher); § Rules 2
 */
export function requireAppBaseUrl(env: EnvRecord, role: ProcessRole): void {
  if (role !== 'api' && role !== 'dispatcher') return;
  if (
    isSet(env, 'APP_BASE_URL') || !isSet(env, 'CORS_ALLOWED_ORIGINS') ||
    commaList(env, 'CORS_ALLOWED_ORIGINS').length > 0
  ) return;
  throw invalid('APP_BASE_URL', 'is required when CORS_ALLOWED_ORIGINS names no origin: set the public origin');
}
