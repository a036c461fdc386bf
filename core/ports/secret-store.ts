/**
 * Secret store port: the secret fields of each credential, sealed in the document store under
 * MASTER_KEY (db mode) or kept as one cloud secret per credential (cloud-secrets-manager mode).
 *
 * Source: spec/platform-service.md § Authentication rule 11, § Deployment settings (PLATFORM_SECRET_STORE).
 */
export interface SecretStore {
  /** Which store this is. */
  readonly kind: 'db' | 'cloud-secrets-manager';
  /** Writes a new version of the credential's secret fields. @returns the version written */
  put(credentialId: string, fields: Record<string, string>): Promise<{ version: string }>;
  /** The credential's secret fields, or null when there is none. */
  get(credentialId: string): Promise<Record<string, string> | null>;
  /** Deletes the credential's secret (cloud: scheduled with a 7-day recovery window). */
  delete(credentialId: string): Promise<void>;
}
