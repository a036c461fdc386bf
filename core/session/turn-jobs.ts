/**
 * The turn sweep's queue side: a queued turn's job is put on the turn queue again when the queue store no longer
 * holds it pending (lost with a restarted store, never added by a process that died, or kept completed or failed
 * from a run that did not claim the turn). The job id stays the turn id: a kept completed or failed job of that id
 * is removed first (BullMQ adds nothing under an id it still keeps), so a turn has at most one pending job.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container.
 */
import type { JobQueue } from '../ports/job-queue.ts';

/** The queue turns are put on (every dispatcher consumes it). Source: spec § Processes (dispatcher: turns). */
export const TURN_QUEUE = 'turns';

/**
 * Puts turn `turnId` on the turn queue. `jobId` defaults to the turn id (a second add of the same turn is one job);
 * a re-queue after a lost queue store gives a new one. BullMQ refuses job ids holding `:`.
 */
export async function enqueueTurnJob(queue: JobQueue, turnId: string, jobId = turnId): Promise<void> {
  await queue.add(TURN_QUEUE, 'turn', { turnId }, { jobId });
}

/**
 * Puts turn `turnId` on the turn queue unless a job of it is waiting, delayed or running.
 * @returns true when a job was added
 */
export async function ensureTurnJob(queue: JobQueue, turnId: string): Promise<boolean> {
  const state = await queue.jobState(TURN_QUEUE, turnId);
  if (state === 'pending') return false;
  if (state === 'ended' && !(await queue.remove(TURN_QUEUE, turnId))) return false;
  await enqueueTurnJob(queue, turnId);
  return true;
}
