/**
 * Worker settings: memory and wall-time limits, slots, the inspector switch, and the worker host.
 *
 * Source: spec/platform-service.md § Rules 6–7, 10; § Deployment settings (PLATFORM_WORKER_*); § Limits.
 */
import {
  base64Bytes,
  type EnvRecord,
  flag,
  integerAtLeast,
  invalid,
  oneOf,
  port,
  positiveInteger,
} from './env-values.ts';
import { bindAddress, hostAndPort } from './net-values.ts';
import type { WorkerLimits } from './platform-env-model.ts';

/** Smallest worker memory limit in MiB. Source: spec/platform-service.md § Limits */
export const MIN_WORKER_MEMORY_MB = 128;
/** Shortest worker host key in bytes. Source: spec/platform-service.md § Limits (worker host key) */
export const MIN_WORKER_HOST_KEY_BYTES = 32;
/** Default worker host port. Source: spec/platform-service.md § Limits (worker host port) */
export const DEFAULT_WORKER_HOST_PORT = 7340;

/** Values of PLATFORM_WORKER_ISOLATION. Source: docs/decisions.md D17 § 3 */
export const WORKER_ISOLATIONS = ['namespaces', 'permission-only'] as const;

/**
 * Limits and slots of turn and call workers, PLATFORM_WORKER_INSPECT and PLATFORM_WORKER_ISOLATION.
 * @returns turn `{ memoryMb: 1024, wallTimeSeconds: 3600, slots: 3 }`, call `{ 512, 300, 6 }` by default; inspect off;
 *   isolation `namespaces`
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_*); § Limits
 */
export function parseWorkerLimits(env: EnvRecord): WorkerLimits {
  return {
    turn: {
      memoryMb: integerAtLeast(env, 'PLATFORM_WORKER_TURN_MEMORY_MB', 1024, MIN_WORKER_MEMORY_MB),
      wallTimeSeconds: positiveInteger(env, 'PLATFORM_WORKER_TURN_SECONDS', 3600),
      slots: positiveInteger(env, 'PLATFORM_WORKER_TURN_SLOTS', 3),
    },
    call: {
      memoryMb: integerAtLeast(env, 'PLATFORM_WORKER_CALL_MEMORY_MB', 512, MIN_WORKER_MEMORY_MB),
      wallTimeSeconds: positiveInteger(env, 'PLATFORM_WORKER_CALL_SECONDS', 300),
      slots: positiveInteger(env, 'PLATFORM_WORKER_CALL_SLOTS', 6),
    },
    inspect: flag(env, 'PLATFORM_WORKER_INSPECT', false),
    isolation: oneOf(env, 'PLATFORM_WORKER_ISOLATION', WORKER_ISOLATIONS, 'namespaces'),
  };
}

/**
 * The worker host a dispatching process sends workers to (PLATFORM_WORKER_HOST with its key), or undefined.
 * @throws PlatformError `invalid_config` naming PLATFORM_WORKER_HOST or PLATFORM_WORKER_HOST_KEY
 *
 * Source: spec/platform-service.md § Rules 10; § Deployment settings (PLATFORM_WORKER_HOST, PLATFORM_WORKER_HOST_KEY)
 */
export function parseRemoteWorkerHost(env: EnvRecord): { hostname: string; port: number; key: Uint8Array } | undefined {
  const address = hostAndPort(env, 'PLATFORM_WORKER_HOST');
  const key = base64Bytes(env, 'PLATFORM_WORKER_HOST_KEY', { atLeast: MIN_WORKER_HOST_KEY_BYTES });
  if (address === undefined) return undefined;
  if (key === undefined) throw invalid('PLATFORM_WORKER_HOST_KEY', 'is required with PLATFORM_WORKER_HOST');
  return { ...address, key };
}

/**
 * The worker host's own listener: key (required), port (7340), bind address (every interface).
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_HOST_KEY, _PORT, _BIND)
 */
export function parseWorkerHostListener(env: EnvRecord): { key: Uint8Array; port: number; bind: string } {
  const key = base64Bytes(env, 'PLATFORM_WORKER_HOST_KEY', { atLeast: MIN_WORKER_HOST_KEY_BYTES });
  if (key === undefined) {
    throw invalid('PLATFORM_WORKER_HOST_KEY', 'is required on a worker host: at least 32 bytes, base64');
  }
  return {
    key,
    port: port(env, 'PLATFORM_WORKER_HOST_PORT', DEFAULT_WORKER_HOST_PORT),
    bind: bindAddress(env, 'PLATFORM_WORKER_HOST_BIND', '0.0.0.0'),
  };
}
