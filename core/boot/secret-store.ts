/**
 * The secret store a process opens from its settings (PLATFORM_SECRET_STORE): db (sealed under MASTER_KEY in the
 * document store; without a key, outside production, storing or using a credential fails with `master_key_missing`)
 * or the cloud secrets manager.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE, MASTER_KEY).
 */
import { createCloudSecretStore, createDbSecretStore } from '../adapters/secrets/index.ts';
import type { SecretStoreSettings } from '../config/platform-env-model.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { SecretStore } from '../ports/secret-store.ts';

/** Opens the secret store `settings` name. */
export function openSecretStore(
  settings: SecretStoreSettings,
  deps: { docs: DocumentStore; clock: Clock; ids: Ids },
): SecretStore {
  if (settings.kind === 'db') {
    return createDbSecretStore({ ...deps, ...(settings.masterKey ? { masterKey: settings.masterKey } : {}) });
  }
  return createCloudSecretStore({
    region: settings.region,
    prefix: settings.prefix,
    ...(settings.kmsKeyId ? { kmsKeyId: settings.kmsKeyId } : {}),
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    clock: deps.clock,
  });
}
