/**
 * The cloud secret store (PLATFORM_SECRET_STORE=cloud-secrets-manager): one cloud secret per
 * credential named `<prefix><credential id>`, on `@aws-sdk/client-secrets-manager`.
 *
 * Source: spec/platform-service.md § Authentication rule 11; § Deployment settings (PLATFORM_CLOUD_SECRETS_*); §
 * Limits.
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Clock } from '../../ports/clock.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { SecretStore } from '../../ports/secret-store.ts';

/** How long a value read stays in memory, in ms (5 minutes). */
export const SECRET_CACHE_TTL_MS = 5 * 60_000;
/** Recovery window of a deleted credential's secret, in days. */
export const SECRET_RECOVERY_WINDOW_DAYS = 7;
/** Longest secret name prefix, in characters. */
export const MAX_SECRET_PREFIX_LENGTH = 200;

/** Options of {@link createCloudSecretStore}. */
export interface CloudSecretStoreOptions {
  /** PLATFORM_CLOUD_SECRETS_REGION. */
  region: string;
  /** PLATFORM_CLOUD_SECRETS_PREFIX: ends in `/`, at most 200 characters. */
  prefix: string;
  /** PLATFORM_CLOUD_SECRETS_KMS_KEY_ID: key for new secrets; default the account's key. */
  kmsKeyId?: string;
  /** PLATFORM_CLOUD_SECRETS_ENDPOINT: alternative endpoint URL. */
  endpoint?: string;
  /** Clock of the 5-minute cache. */
  clock: Clock;
  /** Static credentials (tests); default the SDK's credential chain (task role, environment …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Checks PLATFORM_CLOUD_SECRETS_PREFIX.
 * @throws PlatformError `invalid_config` naming PLATFORM_CLOUD_SECRETS_PREFIX when it is empty, does not
 *   end in `/`, is longer than 200 characters or holds a character secret names cannot hold
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_SECRETS_PREFIX); § Limits.
 */
export function checkSecretPrefix(prefix: string): void {
  const fail = (why: string) => new PlatformError('invalid_config', `PLATFORM_CLOUD_SECRETS_PREFIX ${why}.`);
  if (!prefix.endsWith('/')) throw fail('must end in /');
  if (prefix.length > MAX_SECRET_PREFIX_LENGTH) {
    throw fail(`must be at most ${MAX_SECRET_PREFIX_LENGTH} characters (it has ${prefix.length})`);
  }
  if (!/^[A-Za-z0-9/_+=.@-]+$/.test(prefix)) throw fail('may hold only letters, digits and / _ + = . @ -');
}

/**
 * Creates the cloud secret store. put writes CreateSecret on a credential's first write and
 * PutSecretValue after (each change a new version) and returns the VersionId; get keeps what it read
 * in memory for 5 minutes by `clock` (put and delete drop it); delete schedules deletion with a 7-day
 * recovery window. It never lists secrets and reaches no name outside the prefix.
 *
 * @returns a {@link SecretStore} of kind `cloud-secrets-manager`
 * @throws (at creation) PlatformError `invalid_config` for a bad prefix; (calls) `invalid_credential_id`
 *   for an id a secret name cannot hold, `secret_store_unavailable` when the service fails
 *
 * Source: spec/platform-service.md § Authentication rule 11.
 */
export function createCloudSecretStore(options: CloudSecretStoreOptions): SecretStore {
  checkSecretPrefix(options.prefix);
  const client = new SecretsManagerClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  const cache = new Map<string, { fields: Record<string, string>; readAtMs: number }>();
  const existing = new Set<string>();
  const nameOf = (credentialId: string) => secretName(options.prefix, credentialId);
  return {
    kind: 'cloud-secrets-manager',
    async put(credentialId, fields) {
      const name = nameOf(credentialId);
      cache.delete(credentialId);
      const value = JSON.stringify(fields);
      const versionId = await call(
        'put',
        credentialId,
        () => writeSecret(client, { name, value, kmsKeyId: options.kmsKeyId, exists: existing.has(name) }),
      );
      existing.add(name);
      return { version: versionId };
    },
    async get(credentialId) {
      const name = nameOf(credentialId);
      const nowMs = options.clock.now().getTime();
      const hit = cache.get(credentialId);
      if (hit && nowMs - hit.readAtMs < SECRET_CACHE_TTL_MS) return { ...hit.fields };
      const fields = await call('get', credentialId, () => readSecret(client, name));
      if (fields === null) cache.delete(credentialId);
      else cache.set(credentialId, { fields: { ...fields }, readAtMs: nowMs });
      return fields;
    },
    async delete(credentialId) {
      const name = nameOf(credentialId);
      cache.delete(credentialId);
      existing.delete(name);
      await call('delete', credentialId, () => scheduleDeletion(client, name));
    },
  };
}

/** `<prefix><credential id>`. @throws PlatformError `invalid_credential_id` */
function secretName(prefix: string, credentialId: string): string {
  if (!/^[A-Za-z0-9_+=.@-]+$/.test(credentialId) || prefix.length + credentialId.length > 512) {
    throw new PlatformError(
      'invalid_credential_id',
      'A credential id for the cloud secret store may hold only letters, digits and _ + = . @ - (secret names are ' +
        'at most 512 characters).',
    );
  }
  return `${prefix}${credentialId}`;
}

/** CreateSecret, or PutSecretValue once the secret exists; returns the VersionId. */
async function writeSecret(
  client: SecretsManagerClient,
  secret: { name: string; value: string; kmsKeyId?: string; exists: boolean },
): Promise<string> {
  const putValue = async () =>
    (await client.send(new PutSecretValueCommand({ SecretId: secret.name, SecretString: secret.value }))).VersionId;
  if (secret.exists) {
    try {
      return required(await putValue());
    } catch (error) {
      if (!isAwsError(error, 'ResourceNotFoundException')) throw error;
    }
  }
  try {
    const created = await client.send(
      new CreateSecretCommand({
        Name: secret.name,
        SecretString: secret.value,
        ...(secret.kmsKeyId ? { KmsKeyId: secret.kmsKeyId } : {}),
      }),
    );
    return required(created.VersionId);
  } catch (error) {
    if (!isAwsError(error, 'ResourceExistsException')) throw error;
    return required(await putValue());
  }
}

/** The secret's fields, or null when there is no secret (or it is scheduled for deletion). */
async function readSecret(client: SecretsManagerClient, name: string): Promise<Record<string, string> | null> {
  try {
    const value = await client.send(new GetSecretValueCommand({ SecretId: name }));
    if (value.SecretString === undefined) return null;
    return JSON.parse(value.SecretString) as Record<string, string>;
  } catch (error) {
    if (isAwsError(error, 'ResourceNotFoundException')) return null;
    if (isAwsError(error, 'InvalidRequestException') && /deletion/i.test((error as Error).message)) return null;
    throw error;
  }
}

/** DeleteSecret with the 7-day recovery window; a secret that does not exist is no error. */
async function scheduleDeletion(client: SecretsManagerClient, name: string): Promise<void> {
  try {
    await client.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: SECRET_RECOVERY_WINDOW_DAYS }));
  } catch (error) {
    if (!isAwsError(error, 'ResourceNotFoundException')) throw error;
  }
}

function required(versionId: string | undefined): string {
  if (versionId === undefined) throw new Error('the service returned no VersionId');
  return versionId;
}

/** Runs one service call; failures become `secret_store_unavailable` naming the operation and credential, never a
 * value. */
async function call<T>(operation: string, credentialId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    const name = error instanceof Error ? error.name : 'Error';
    throw new PlatformError(
      'secret_store_unavailable',
      `The cloud secret store failed to ${operation} the secret of credential ${credentialId} (${name}).`,
      { cause: error },
    );
  }
}

function isAwsError(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
