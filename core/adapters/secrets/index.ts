/**
 * Secret store adapters (public edge of `core/adapters/secrets`): db (AES-256-GCM under MASTER_KEY in
 * the document store) and cloud (one cloud secret per credential).
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE); § Authentication rule 11.
 */
export {
  checkSecretPrefix,
  type CloudSecretStoreOptions,
  createCloudSecretStore,
  MAX_SECRET_PREFIX_LENGTH,
  SECRET_CACHE_TTL_MS,
  SECRET_RECOVERY_WINDOW_DAYS,
} from './cloud-secret-store.ts';
export {
  createDbSecretStore,
  CREDENTIAL_SECRETS_COLLECTION,
  type DbSecretStoreOptions,
  MASTER_KEY_BYTES,
  parseMasterKey,
  type SealedSecretDocument,
} from './db-secret-store.ts';
