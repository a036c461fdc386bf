/**
 * The evaluation sweep: runs whose job the queue store lost are queued again, runs whose job ended without ending
 * them end `error`.
 *
 * Source: issue "Evaluations" § Runs, § Results, § Done when (the replacement table: running ones failed, queued
 * ones re-enqueued); spec/platform-service.md § Processes.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { runsOf } from './evaluation-runs.ts';
import { EVALUATION_QUEUE } from './model.ts';

/** How old a queued or running run must be before the sweep looks at its job (ms): a minute. */
export const EVALUATION_SWEEP_AGE_MS = 60_000;

/**
 * The evaluation sweep (every dispatcher, with the turn sweep): a run still queued or running whose job the queue
 * store lost (a store restarted without its file) is queued again; one whose job ended without ending the run (its
 * handler failed: the store answered an error mid-run) ends `error`, saying so. Runs younger than a minute are left
 * to their job. @returns one line per run acted on
 */
export async function sweepEvaluationRuns(
  deps: { docs: DocumentStore; clock: Clock; jobs: Pick<JobQueue, 'add' | 'jobState'> },
): Promise<string[]> {
  const before = new Date(deps.clock.now().getTime() - EVALUATION_SWEEP_AGE_MS);
  const open = await runsOf(deps).find({ status: { $in: ['queued', 'running'] }, createdAt: { $lt: before } }, {
    limit: 100,
  });
  const lines: string[] = [];
  for (const run of open) {
    const state = await deps.jobs.jobState(EVALUATION_QUEUE, run._id);
    if (state === 'missing') {
      await deps.jobs.add(EVALUATION_QUEUE, 'run', { runId: run._id }, { jobId: run._id });
      lines.push(`[evaluation] ${run._id}: its job was lost; queued again`);
    } else if (state === 'ended') {
      const error = {
        code: 'run_failed',
        message: 'the dispatcher failed while running this evaluation (see cairn failed-jobs list); run it again',
      };
      const filter = { _id: run._id, status: { $in: ['queued', 'running'] } };
      await runsOf(deps).updateOne(filter, { $set: { status: 'error', error, endedAt: deps.clock.now() } });
      lines.push(`[evaluation] ${run._id}: its job ended without ending the run; ended error`);
    }
  }
  return lines;
}
