/**
 * The data directory's own master key: outside production, with the db secret store and no MASTER_KEY, the
 * all-in-one entrypoint seals credentials under a key it made once and keeps in `<data>/master-key` (mode 0600).
 *
 * Source: spec/platform-service.md § Deployment settings (MASTER_KEY: required in production; outside production an
 * absent key makes only storing or using a credential fail); docs/decisions.md D22 § 4.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The key to give the API and dispatcher, or undefined when they read their own (MASTER_KEY set, production, or
 * the cloud secret store).
 */
export function localMasterKey(dataDir: string, env: Record<string, string | undefined>): string | undefined {
  if (env.MASTER_KEY || env.NODE_ENV === 'production' || (env.PLATFORM_SECRET_STORE ?? 'db') !== 'db') return undefined;
  const file = join(dataDir, 'master-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}
