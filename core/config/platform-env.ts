/**
 * The deployment settings of a process, parsed once at boot from the plain environment record:
 * value rules of every variable of the spec's table, then the cross-field boot rules.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables); § Rules 2, 10.
 */
import {
  refuseOtherSecretStoreVariables,
  refuseOtherSignInModeVariables,
  refuseWorkerInspectInProduction,
  requireAppBaseUrl,
  requireCloudAlbSettings,
  requireCloudSecretsSettings,
  requireObjectStoreKeyPair,
  requireOidcSettings,
  requireProductionMasterKey,
  requireProductionQueue,
  requireProductionSignIn,
  requireRubricModelTogether,
  requireStoreAddresses,
} from './boot-rules.ts';
import { type EnvRecord, invalid, oneOf, positiveInteger } from './env-values.ts';
import type { DispatchingEnv, PlatformEnv, ProcessRole, ServiceEnv, WorkerHostEnv } from './platform-env-model.ts';
import { parseSecretStore, SECRET_STORE_KINDS } from './secret-store-settings.ts';
import {
  parseAppVersion,
  parseDirectories,
  parseHttpSettings,
  parseNodeEnv,
  parseRubricModel,
  parseStoreAndQueue,
  parseWorkerFacingSettings,
} from './service-settings.ts';
import { parseIdentity, parseSignIn, parseSignInMode } from './sign-in-settings.ts';
import { refuseWorkerHostHoldings, requireWorkerHostKeyPairing } from './worker-host-rules.ts';
import { parseRemoteWorkerHost, parseWorkerHostListener, parseWorkerLimits } from './worker-settings.ts';
import { parseRetentionSettings } from './retention-settings.ts';

/**
 * Options of {@link parsePlatformEnv}.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export interface ParsePlatformEnvOptions {
  /** The process reading the environment. */
  role: ProcessRole;
  /** The OS temp directory; the default scratch directory is `<tmpDir>/cairn` (default `/tmp`). */
  tmpDir?: string;
  /** Worker host only: whether config.yaml exists in its app directory (default false; the bin checks the disk). */
  configFileExists?: boolean;
}

/**
 * Parses and validates every deployment setting for `options.role`.
 * A worker host reads only its own variables and refuses data store addresses, keys, the config and cloud
 * credentials; the API and the dispatcher are held to the production requirements; semantic-mcp to every
 * value rule and mode rule but not the production requirements (it signs nobody in and uses no queue or key).
 * @returns typed settings with defaults filled in, plus `warnings` (lines for stderr)
 * @throws PlatformError `invalid_config` whose first line names the variable, never its value
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables); § Rules 10
 */
export function parsePlatformEnv(
  env: EnvRecord,
  options: ParsePlatformEnvOptions & { role: 'worker-host' },
): WorkerHostEnv;
export function parsePlatformEnv(
  env: EnvRecord,
  options: ParsePlatformEnvOptions & { role: 'api' | 'dispatcher' },
): DispatchingEnv;
export function parsePlatformEnv(
  env: EnvRecord,
  options: ParsePlatformEnvOptions & { role: 'semantic-mcp' },
): ServiceEnv;
export function parsePlatformEnv(env: EnvRecord, options: ParsePlatformEnvOptions): PlatformEnv;
export function parsePlatformEnv(env: EnvRecord, options: ParsePlatformEnvOptions): PlatformEnv {
  return options.role === 'worker-host'
    ? parseWorkerHostEnv(env, options.configFileExists ?? false)
    : parseServiceEnv(env, options.role, options.tmpDir ?? '/tmp');
}

/**
 * Runs every cross-field boot rule that applies to `role`, in the spec's table order.
 * @throws PlatformError `invalid_config` naming the variable
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules)
 */
export function checkBootRules(env: EnvRecord, role: ProcessRole, production: boolean): void {
  if (role === 'worker-host') {
    requireWorkerHostKeyPairing(env, role);
    refuseWorkerInspectInProduction(env, production);
    return;
  }
  requireStoreAddresses(env);
  requireObjectStoreKeyPair(env);
  if (role === 'api' || role === 'dispatcher') {
    requireProductionSignIn(env, production);
    requireProductionMasterKey(env, production);
    requireProductionQueue(env, production);
  }
  requireOidcSettings(env);
  requireCloudAlbSettings(env);
  requireCloudSecretsSettings(env);
  refuseOtherSignInModeVariables(env);
  refuseOtherSecretStoreVariables(env);
  requireWorkerHostKeyPairing(env, role);
  requireRubricModelTogether(env);
  refuseWorkerInspectInProduction(env, production);
  requireAppBaseUrl(env, role);
}

function parseServiceEnv(env: EnvRecord, role: Exclude<ProcessRole, 'worker-host'>, tmpDir: string): ServiceEnv {
  const nodeEnv = parseNodeEnv(env);
  const production = nodeEnv === 'production';
  const warnings: string[] = [];
  const mode = parseSignInMode(env, production);
  oneOf(env, 'PLATFORM_SECRET_STORE', SECRET_STORE_KINDS, 'db');
  checkBootRules(env, role, production);
  const http = parseHttpSettings(env, warnings);
  const workers = parseWorkerLimits(env);
  const signIn = parseSignIn(env, mode);
  const identity = parseIdentity(env, http.appBaseUrl);
  if (!identity.emailVerification) {
    warnings.push(
      'PLATFORM_EMAIL_VERIFICATION is off: every address the identity provider supplies counts as verified.',
    );
  }
  const triggerPollConcurrency = positiveInteger(env, 'PLATFORM_TRIGGER_POLL_CONCURRENCY', 4);
  if (triggerPollConcurrency >= workers.call.slots) {
    warnings.push(
      'PLATFORM_TRIGGER_POLL_CONCURRENCY is not below PLATFORM_WORKER_CALL_SLOTS: polls can take every call worker.',
    );
  }
  const stopGraceSeconds = stopGrace(env);
  const remoteWorkerHost = parseRemoteWorkerHost(env);
  const rubricModel = parseRubricModel(env);
  const configFile = env.PLATFORM_CONFIG_FILE?.trim() || undefined;
  return {
    role,
    nodeEnv,
    production,
    appVersion: parseAppVersion(env),
    ...http,
    ...parseStoreAndQueue(env, production),
    ...parseDirectories(env, tmpDir),
    ...(signIn === undefined ? {} : { signIn }),
    identity,
    secretStore: parseSecretStore(env),
    ...parseWorkerFacingSettings(env, production, warnings),
    triggerPollConcurrency,
    workers,
    stopGraceSeconds,
    retention: parseRetentionSettings(env),
    ...(remoteWorkerHost === undefined ? {} : { remoteWorkerHost }),
    ...(rubricModel === undefined ? {} : { rubricModel }),
    configSource: {
      inline: (env.PLATFORM_CONFIG ?? '').trim() !== '',
      ...(configFile === undefined ? {} : { file: configFile }),
    },
    warnings,
  };
}

/**
 * PLATFORM_STOP_GRACE_SECONDS: how long a stopping dispatcher lets running turns finish (default 20, at most 90 so
 * ending the rest and closing fit the stop timeout of 120 s). Source: platform-service.md § Limits (deployment
 * guidance: stop timeout 120 s), § Replacement of a container. @throws PlatformError `invalid_config`
 */
function stopGrace(env: EnvRecord): number {
  const seconds = positiveInteger(env, 'PLATFORM_STOP_GRACE_SECONDS', 20);
  if (seconds > 90) {
    throw invalid(
      'PLATFORM_STOP_GRACE_SECONDS',
      'must be at most 90: the stop timeout is 120 s, and ending the turns ' +
        'still running and closing the stores take the rest',
    );
  }
  return seconds;
}

function parseWorkerHostEnv(env: EnvRecord, configFileExists: boolean): WorkerHostEnv {
  refuseWorkerHostHoldings(env, { configFileExists });
  const nodeEnv = parseNodeEnv(env);
  const production = nodeEnv === 'production';
  checkBootRules(env, 'worker-host', production);
  const warnings: string[] = [];
  return {
    role: 'worker-host',
    nodeEnv,
    production,
    appVersion: parseAppVersion(env),
    ...parseWorkerFacingSettings(env, production, warnings),
    workers: parseWorkerLimits(env),
    workerHost: parseWorkerHostListener(env),
    warnings,
  };
}
