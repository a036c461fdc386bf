/**
 * Settings of the API process, parsed from a plain environment record.
 *
 * Source: ../shared/spec/platform-service.md § Deployment settings, § Rules 2.
 */
import { invalid, optional, port, type EnvRecord } from '../../core/config/env-values.ts';
import { parseStoreSettings, type StoreSettings } from '../../core/config/store-settings.ts';

/** Everything the API reads at boot (the semantic slice; the platform issue widens it). */
export interface ApiSettings {
  host: string;
  port: number;
  version: string;
  production: boolean;
  signIn: 'dev-user';
  stores: StoreSettings;
  scratchDir: string;
}

/**
 * Parses the environment. @throws PlatformError `invalid_config` naming the first bad variable
 * @param tmpDir - the OS temp directory (default scratch location)
 */
export function parseApiSettings(env: EnvRecord, tmpDir: string): ApiSettings {
  const nodeEnv = optional(env, 'NODE_ENV') ?? 'development';
  if (!['development', 'test', 'production'].includes(nodeEnv)) throw invalid('NODE_ENV', 'must be development, test or production');
  const production = nodeEnv === 'production';
  const signIn = optional(env, 'PLATFORM_SIGN_IN') ?? (production ? undefined : 'dev-user');
  if (signIn === undefined) throw invalid('PLATFORM_SIGN_IN', 'is required when NODE_ENV is production (oidc or cloud-alb)');
  if (!['oidc', 'cloud-alb', 'dev-user'].includes(signIn)) throw invalid('PLATFORM_SIGN_IN', 'must be oidc, cloud-alb or dev-user');
  if (signIn === 'dev-user' && production) throw invalid('PLATFORM_SIGN_IN', 'cannot be dev-user when NODE_ENV is production');
  if (signIn !== 'dev-user') throw invalid('PLATFORM_SIGN_IN', `${signIn} sign-in is not part of this build yet; use dev-user outside production`);
  return {
    host: optional(env, 'API_HOST') ?? '0.0.0.0',
    port: port(env, 'PORT', 3001),
    version: optional(env, 'APP_VERSION') ?? 'dev',
    production,
    signIn: 'dev-user',
    stores: parseStoreSettings(env),
    scratchDir: optional(env, 'PLATFORM_SCRATCH_DIR') ?? `${tmpDir}/cairn-scratch`,
  };
}
