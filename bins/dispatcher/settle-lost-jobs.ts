/**
 * Settles records whose jobs were lost with a replaced container's embedded queue store, before the
 * new dispatcher runs anything (the replacement table). Each kind of queued work registers its rule
 * here when it exists; this release has no queued work kinds yet, so nothing is held only in the queue store.
 *
 * Source: ../shared/spec/platform-service.md § Replacement of a container with an embedded queue store.
 */
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';

/** One rule of the replacement table: which records, and what becomes of them. */
export interface SettleRule {
  /** e.g. "queued turn or evaluation → enqueued again". */
  describe: string;
  /** Settles the records; returns how many. */
  settle(deps: { docs: DocumentStore; clock: Clock }): Promise<number>;
}

/** The rules of this release (turns, evaluations, provisioning and environment operations add theirs). */
export const settleRules: SettleRule[] = [];

/** Runs every rule; returns one log line per rule that settled something, or one line saying none applied. */
export async function settleLostJobs(deps: { docs: DocumentStore; clock: Clock }): Promise<string[]> {
  const lines: string[] = [];
  for (const rule of settleRules) {
    const count = await rule.settle(deps);
    if (count > 0) lines.push(`settled ${count} record(s): ${rule.describe}`);
  }
  return lines.length > 0 ? lines : ['no records waited on lost jobs'];
}
