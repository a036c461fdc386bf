/**
 * Boot rules of the worker host and of the key that connects dispatching processes to it.
 *
 * Source: spec/platform-service.md § Rules 10; § Deployment settings (PLATFORM_WORKER_HOST, PLATFORM_WORKER_HOST_KEY).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { type EnvRecord, invalid, optional } from './env-values.ts';
import { workerHostHolding, workerHostOffenders } from './env-variables.ts';
import type { ProcessRole } from './platform-env-model.ts';

/**
 * The config file a worker host looks for in its app directory.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export const APP_DIR_CONFIG_FILE = 'config.yaml';

/**
 * Worker-host guard: a worker host refuses to start when its environment holds a data store address,
 * a key, the config (PLATFORM_CONFIG, PLATFORM_CONFIG_FILE, or config.yaml in its app directory) or a
 * cloud credential. The first line names each offending variable (and the file), never a value.
 * @param configFileExists - whether config.yaml exists in the app directory (the bin checks the disk)
 * @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Rules 10
 */
export function refuseWorkerHostHoldings(env: EnvRecord, options: { configFileExists: boolean }): void {
  const offenders = workerHostOffenders(env);
  const named = options.configFileExists ? [...offenders, `${APP_DIR_CONFIG_FILE} (app directory)`] : offenders;
  if (named.length === 0) return;
  const kinds = offenders.map((name) => `${name}: ${workerHostHolding(name)}`);
  if (options.configFileExists) kinds.push(`${APP_DIR_CONFIG_FILE} in the app directory: config`);
  throw new PlatformError(
    'invalid_config',
    `${
      named.join(', ')
    } must not reach a worker host: it holds no data store address, key, config or cloud credential.\n${
      kinds.join('\n')
    }`,
  );
}

/**
 * The worker host key's pairing: PLATFORM_WORKER_HOST requires PLATFORM_WORKER_HOST_KEY; the key without
 * PLATFORM_WORKER_HOST on a dispatching process (API, dispatcher) refuses the start; a worker host requires the key.
 * @param role - the process reading the environment
 * @throws PlatformError `invalid_config` naming the variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_HOST, PLATFORM_WORKER_HOST_KEY)
 */
export function requireWorkerHostKeyPairing(env: EnvRecord, role: ProcessRole): void {
  const host = optional(env, 'PLATFORM_WORKER_HOST') !== undefined;
  const key = optional(env, 'PLATFORM_WORKER_HOST_KEY') !== undefined;
  if (role === 'worker-host') {
    if (!key) {
      throw invalid(
        'PLATFORM_WORKER_HOST_KEY',
        'is required on a worker host: at least 32 bytes, base64, shared with its dispatching processes',
      );
    }
    return;
  }
  if (host && !key) throw invalid('PLATFORM_WORKER_HOST_KEY', 'is required with PLATFORM_WORKER_HOST');
  if (key && !host && (role === 'api' || role === 'dispatcher')) {
    throw invalid(
      'PLATFORM_WORKER_HOST_KEY',
      'is set without PLATFORM_WORKER_HOST: name the worker host or unset the key',
    );
  }
}
