/**
 * The one rule for PLATFORM_EMBEDDED_QUEUE_MAXMEMORY, read by the all-in-one entrypoint (which writes it
 * into the embedded redis-server's configuration) and by the services (which report it): a positive
 * whole number of bytes, optionally with one of redis-server's units b, k, kb, m, mb, g, gb (any case).
 * Zero is refused: to redis-server it means "no ceiling", and the store is meant to refuse new jobs
 * when full rather than grow without bound.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMBEDDED_QUEUE_MAXMEMORY).
 */
import { type EnvRecord, invalid, optional } from './env-values.ts';

/** Default memory ceiling of the embedded queue store. Source: spec/platform-service.md § Deployment settings */
export const DEFAULT_EMBEDDED_QUEUE_MAXMEMORY = '256mb';

const sizePattern = /^[1-9][0-9]*(b|k|kb|m|mb|g|gb)?$/i;

/**
 * PLATFORM_EMBEDDED_QUEUE_MAXMEMORY as written (trimmed), or `256mb` when unset or empty.
 * @throws PlatformError `invalid_config` naming PLATFORM_EMBEDDED_QUEUE_MAXMEMORY when it is not such a size
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMBEDDED_QUEUE_MAXMEMORY)
 */
export function parseEmbeddedQueueMaxMemory(env: EnvRecord): string {
  const value = optional(env, 'PLATFORM_EMBEDDED_QUEUE_MAXMEMORY') ?? DEFAULT_EMBEDDED_QUEUE_MAXMEMORY;
  if (!sizePattern.test(value)) {
    throw invalid(
      'PLATFORM_EMBEDDED_QUEUE_MAXMEMORY',
      'must be a memory size above zero such as 256mb or 1gb (units b, k, kb, m, mb, g, gb)',
    );
  }
  return value;
}
