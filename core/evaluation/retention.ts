/**
 * Retention of evaluation runs: a run that ended and was started more than the session retention ago goes, with its
 * cassette (`evaluation_calls`), as its cases' sessions go (core/session/retention.ts), so a run never outlives the
 * transcripts it links to by long. Runs still queued or running stay.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SESSION_RETENTION_DAYS); issue "Evaluations"
 * § Results (a run is kept with the build it ran on).
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { evaluationCollections, type EvaluationRunRecord, finalEvaluationStatuses } from './model.ts';

/** Runs removed per sweep at most (the next sweep takes the rest). */
export const EVALUATION_RETENTION_BATCH = 200;
const DAY_MS = 86_400_000;

/**
 * Removes ended runs started more than `sessionDays` ago, and their recorded model calls.
 * @returns how many runs and calls it removed
 */
export async function sweepEvaluationRetention(
  deps: { docs: DocumentStore; clock: Clock },
  days: { sessionDays: number },
): Promise<{ runs: number; calls: number }> {
  const before = new Date(deps.clock.now().getTime() - days.sessionDays * DAY_MS);
  const runs = deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
  const old = await runs.find({ status: { $in: [...finalEvaluationStatuses] }, createdAt: { $lt: before } }, {
    sort: { createdAt: 1 },
    limit: EVALUATION_RETENTION_BATCH,
  });
  if (old.length === 0) return { runs: 0, calls: 0 };
  const ids = old.map((r) => r._id);
  // The calls first: a sweep that stops between the two leaves runs the next sweep removes, never orphaned calls.
  const calls = await deps.docs.collection(evaluationCollections.calls).deleteMany({ runId: { $in: ids } });
  const removed = await runs.deleteMany({ _id: { $in: ids } });
  return { runs: removed, calls };
}
