/**
 * Secret store settings: PLATFORM_SECRET_STORE, MASTER_KEY and PLATFORM_CLOUD_SECRETS_*.
 *
 * Source: spec/platform-service.md § Deployment settings; § Authentication rule 11.
 */
import { base64Bytes, type EnvRecord, invalid, oneOf, optional, required } from './env-values.ts';
import { urlAsWritten } from './net-values.ts';
import type { SecretStoreSettings } from './platform-env-model.ts';

/**
 * Secret store kinds.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE, PLATFORM_CLOUD_SECRETS_*)
 */
export const SECRET_STORE_KINDS = ['db', 'cloud-secrets-manager'] as const;

/**
 * Default secret name prefix of the cloud store.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE, PLATFORM_CLOUD_SECRETS_*)
 */
export const DEFAULT_CLOUD_SECRETS_PREFIX = 'cairn/credentials/';

/** Longest secret name prefix. Source: spec/platform-service.md § Limits (secret name prefix) */
export const MAX_CLOUD_SECRETS_PREFIX_CHARS = 200;

/**
 * Parses the secret store. Run after the boot rules (they guarantee the region with the cloud store).
 * @returns `{ kind: 'db', masterKey? }` (32 raw bytes) or `{ kind: 'cloud-secrets-manager', region, prefix, kmsKeyId?,
 * endpoint? }`
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE, MASTER_KEY, PLATFORM_CLOUD_SECRETS_*)
 */
export function parseSecretStore(env: EnvRecord): SecretStoreSettings {
  const kind = oneOf(env, 'PLATFORM_SECRET_STORE', SECRET_STORE_KINDS, 'db');
  if (kind === 'db') {
    const masterKey = base64Bytes(env, 'MASTER_KEY', { exactly: 32 });
    return masterKey === undefined ? { kind } : { kind, masterKey };
  }
  const region = required(env, 'PLATFORM_CLOUD_SECRETS_REGION', 'the region code of the secrets manager');
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(region)) {
    throw invalid('PLATFORM_CLOUD_SECRETS_REGION', 'must be a region code (lowercase letters, digits and dashes)');
  }
  const kmsKeyId = optional(env, 'PLATFORM_CLOUD_SECRETS_KMS_KEY_ID');
  const endpoint = urlAsWritten(env, 'PLATFORM_CLOUD_SECRETS_ENDPOINT');
  return {
    kind,
    region,
    prefix: secretsPrefix(env),
    ...(kmsKeyId === undefined ? {} : { kmsKeyId }),
    ...(endpoint === undefined ? {} : { endpoint }),
  };
}

function secretsPrefix(env: EnvRecord): string {
  const name = 'PLATFORM_CLOUD_SECRETS_PREFIX';
  const prefix = optional(env, name) ?? DEFAULT_CLOUD_SECRETS_PREFIX;
  if (!prefix.endsWith('/')) throw invalid(name, 'must end in /');
  if (prefix.length > MAX_CLOUD_SECRETS_PREFIX_CHARS) {
    throw invalid(name, `must be at most ${MAX_CLOUD_SECRETS_PREFIX_CHARS} characters`);
  }
  if (!/^[A-Za-z0-9/_+=.@-]+$/.test(prefix)) throw invalid(name, 'may hold only letters, digits and /_+=.@-');
  return prefix;
}
