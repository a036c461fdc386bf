/**
 * How long the platform keeps what would otherwise grow without bound, read by the dispatcher (which runs the
 * retention sweep) and semantic-mcp (the call log). Every value is a positive whole number; the names and defaults:
 *
 * | Variable | Default | Kept |
 * |---|---|---|
 * | PLATFORM_FAILED_JOBS_KEPT | 1000 | failed jobs per queue in the queue store, and failure records in `failed_jobs` |
 * | PLATFORM_FAILED_JOBS_DAYS | 7 | days a failed job (and its failure record) is kept |
 * | PLATFORM_SESSION_RETENTION_DAYS | 90 | days after its last update a finished or parked session is kept, with its
 *   turns and checkpoint messages; a running session is never removed |
 * | PLATFORM_DELIVERY_RETENTION_DAYS | 30 | days a claimed firing id is kept (a retry of it within is `duplicate`);
 *   at most 30, the claim's own expiry |
 * | PLATFORM_CALL_LOG_RETENTION_DAYS | 30 | days of the semantic call log; at most 30, its own expiry |
 *
 * Source: spec/platform-service.md § Deployment settings (value rules: positive integers); docs/architecture.md
 * § Queues and collections (retention).
 */
import { type EnvRecord, invalid, positiveInteger } from './env-values.ts';

/** Retention of each growing store; see the module's table. */
export interface RetentionSettings {
  failedJobs: { kept: number; days: number };
  sessionDays: number;
  deliveryDays: number;
  callLogDays: number;
}

/** Days the stores' own expiry indexes keep claimed firing ids and call log entries: the most a setting may ask. */
export const MAX_INDEXED_RETENTION_DAYS = 30;

/**
 * Reads the retention settings (defaults when unset).
 * @throws PlatformError `invalid_config` naming the variable when one is not a positive whole number, or a setting
 *   bounded by an expiry index asks for more than 30 days
 */
export function parseRetentionSettings(env: EnvRecord): RetentionSettings {
  const atMost30 = (name: string) => {
    const days = positiveInteger(env, name, MAX_INDEXED_RETENTION_DAYS);
    if (days > MAX_INDEXED_RETENTION_DAYS) {
      const rule = `must be at most ${MAX_INDEXED_RETENTION_DAYS}: the store's own expiry removes older entries`;
      throw invalid(name, rule);
    }
    return days;
  };
  return {
    failedJobs: {
      kept: positiveInteger(env, 'PLATFORM_FAILED_JOBS_KEPT', 1000),
      days: positiveInteger(env, 'PLATFORM_FAILED_JOBS_DAYS', 7),
    },
    sessionDays: positiveInteger(env, 'PLATFORM_SESSION_RETENTION_DAYS', 90),
    deliveryDays: atMost30('PLATFORM_DELIVERY_RETENTION_DAYS'),
    callLogDays: atMost30('PLATFORM_CALL_LOG_RETENTION_DAYS'),
  };
}
