/**
 * The environment a worker process is started with: an allowlist built from parsed settings, never the
 * process's own environment.
 *
 * Source: spec/platform-service.md § Deployment settings (a worker reads none: its environment is built from
 * NODE_ENV, APP_VERSION, PLATFORM_PROMPT_CACHE, PLATFORM_PROMPT_CACHE_TTL, PLATFORM_ALLOW_PRIVATE_URLS and its own
 * kind and memory limit); § Rules 6.
 */
import type { ServiceEnv } from './platform-env-model.ts';

/**
 * Variable carrying the worker's kind (turn or call).
 *
 * Source: spec/platform-service.md § Deployment settings (a worker reads none)
 */
export const WORKER_KIND_VARIABLE = 'PLATFORM_WORKER_KIND';
/**
 * Variable carrying the worker's memory limit in MiB.
 *
 * Source: spec/platform-service.md § Deployment settings (a worker reads none)
 */
export const WORKER_MEMORY_VARIABLE = 'PLATFORM_WORKER_MEMORY_MB';

/**
 * Every variable a worker may hold; a worker holding any other refuses to start.
 *
 * Source: spec/platform-service.md § Deployment settings
 */
export const WORKER_ENVIRONMENT_VARIABLES: readonly string[] = [
  'NODE_ENV',
  'APP_VERSION',
  'PLATFORM_PROMPT_CACHE',
  'PLATFORM_PROMPT_CACHE_TTL',
  'PLATFORM_ALLOW_PRIVATE_URLS',
  WORKER_KIND_VARIABLE,
  WORKER_MEMORY_VARIABLE,
];

/**
 * The parsed settings a worker environment is built from (a ServiceEnv or a WorkerHostEnv fits).
 *
 * Source: spec/platform-service.md § Deployment settings (a worker reads none)
 */
export type WorkerEnvironmentSource = Pick<
  ServiceEnv,
  'nodeEnv' | 'appVersion' | 'promptCache' | 'promptCacheTtl' | 'allowPrivateUrls'
>;

/**
 * Builds a worker's environment from parsed settings, in canonical spellings (on/off, true/false).
 * PLATFORM_ALLOW_PRIVATE_URLS carries the effective value (always false in production).
 * @param env - parsed settings of the starting process
 * @param worker - `kind` (turn or call) and `memoryLimitMb` (MiB)
 * @returns exactly the variables of {@link WORKER_ENVIRONMENT_VARIABLES}
 *
 * Source: spec/platform-service.md § Deployment settings; § Rules 6–7
 */
export function workerEnvironment(
  env: WorkerEnvironmentSource,
  worker: { kind: 'turn' | 'call'; memoryLimitMb: number },
): Record<string, string> {
  return {
    NODE_ENV: env.nodeEnv,
    APP_VERSION: env.appVersion,
    PLATFORM_PROMPT_CACHE: env.promptCache ? 'on' : 'off',
    PLATFORM_PROMPT_CACHE_TTL: env.promptCacheTtl,
    PLATFORM_ALLOW_PRIVATE_URLS: env.allowPrivateUrls ? 'true' : 'false',
    [WORKER_KIND_VARIABLE]: worker.kind,
    [WORKER_MEMORY_VARIABLE]: String(worker.memoryLimitMb),
  };
}

/**
 * Names of variables in a worker's environment outside the allowlist (sorted); a worker refuses to start
 * when this is not empty, naming them and never a value.
 *
 * Source: spec/platform-service.md § Deployment settings (a worker refuses to start holding anything else)
 */
export function foreignWorkerVariables(env: Record<string, string | undefined>): string[] {
  return Object.keys(env).filter((name) => env[name] !== undefined && !WORKER_ENVIRONMENT_VARIABLES.includes(name))
    .sort();
}
