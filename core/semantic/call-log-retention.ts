/**
 * Retention of the semantic call log below its own expiry: entries older than `days` (PLATFORM_CALL_LOG_RETENTION_DAYS,
 * at most {@link callLogRetentionDays}, the expiry index on `at`) are removed by the dispatcher's retention sweep.
 *
 * Source: docs/architecture.md § Queues and collections (retention); core/config/retention-settings.ts.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { callLogRetentionDays, collections } from './records.ts';

/** Removes call log entries older than `days` (capped at {@link callLogRetentionDays}); returns how many. */
export async function sweepCallLog(deps: { docs: DocumentStore; clock: Clock }, days: number): Promise<number> {
  const kept = Math.min(days, callLogRetentionDays);
  const cutoff = new Date(deps.clock.now().getTime() - kept * 86_400_000);
  return deps.docs.collection(collections.callLog).deleteMany({ at: { $lt: cutoff } });
}
