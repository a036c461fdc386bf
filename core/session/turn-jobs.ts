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
 * The queue of the design agent's turns (every dispatcher consumes it, with the `designAgent` model). Source: spec §
 * Processes (dispatcher: design-agent turns); issue "The design agent" § Runtime.
 */
export const DESIGN_TURN_QUEUE = 'design-agent-turns';

/**
 * The prefix of the ids of a design chat's session and turns (core/design): a turn id says which queue it takes, so
 * every use case that queues a turn (a reply, the turn sweep, a replaced queue store's settle) puts it on the right
 * one without reading anything.
 */
export const DESIGN_ID_PREFIX = 'design-';

/** The queue turn `turnId` is put on: {@link DESIGN_TURN_QUEUE} for a design chat's turn, else {@link TURN_QUEUE}. */
export const turnQueueOf = (turnId: string): string =>
  turnId.startsWith(DESIGN_ID_PREFIX) ? DESIGN_TURN_QUEUE : TURN_QUEUE;

/**
 * Puts turn `turnId` on its turn queue ({@link turnQueueOf}). `jobId` defaults to the turn id (a second add of the
 * same turn is one job); a re-queue after a lost queue store gives a new one. BullMQ refuses job ids holding `:`.
 */
export async function enqueueTurnJob(queue: JobQueue, turnId: string, jobId = turnId): Promise<void> {
  await queue.add(turnQueueOf(turnId), 'turn', { turnId }, { jobId });
}

/**
 * Puts turn `turnId` on its turn queue unless a job of it is waiting, delayed or running.
 * @returns true when a job was added
 */
export async function ensureTurnJob(queue: JobQueue, turnId: string): Promise<boolean> {
  const state = await queue.jobState(turnQueueOf(turnId), turnId);
  if (state === 'pending') return false;
  if (state === 'ended' && !(await queue.remove(turnQueueOf(turnId), turnId))) return false;
  await enqueueTurnJob(queue, turnId);
  return true;
}
