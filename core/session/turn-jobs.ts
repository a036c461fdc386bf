/**
 * The turn sweep's queue side: a queued turn's job is put on the turn queue again when the queue store no longer
 * holds it pending (lost with a restarted store, never added by a process that died, or kept completed or failed
 * from a run that did not claim the turn). The job id stays the turn id: a kept completed or failed job of that id
 * is removed first (BullMQ adds nothing under an id it still keeps), so a turn has at most one pending job.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container.
 */
import type { DocumentStore } from '../ports/document-store.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { turnPlace } from './turn-place.ts';

/** What queuing a turn needs: the queue store, and the document store its place is read from (./turn-place.ts). */
export interface TurnJobDeps {
  queue: JobQueue;
  docs: DocumentStore;
}

/** The queue turns are put on (every dispatcher consumes it). Source: spec § Processes (dispatcher: turns). */
export const TURN_QUEUE = 'turns';

/**
 * The queue of the design agent's turns (every dispatcher consumes it, with the `designAgent` model). Source: spec §
 * Processes (dispatcher: design-agent turns); issue "The design agent" § Runtime.
 */
export const DESIGN_TURN_QUEUE = 'design-agent-turns';

/**
 * The queues every process opens fair (core/adapters/redis/fair-queue.ts): turns are taken interactive first, then
 * round robin between organizations and their agents, whichever process queued them.
 * Source: docs/decisions.md D24 § 1.
 */
export const FAIR_TURN_QUEUES: readonly string[] = [TURN_QUEUE, DESIGN_TURN_QUEUE];

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
 * Puts turn `turnId` on its turn queue ({@link turnQueueOf}) at its place (organization, agent, lane: read from its
 * records, ./turn-place.ts; the turn queues are fair, docs/decisions.md D24 § 1). `jobId` defaults to the turn id (a
 * second add of the same turn is one job). Job ids holding `:` are refused.
 */
export async function enqueueTurnJob({ queue, docs }: TurnJobDeps, turnId: string, jobId = turnId): Promise<void> {
  const place = await turnPlace(docs, turnId);
  await queue.add(turnQueueOf(turnId), 'turn', { turnId }, { jobId, place });
}

/**
 * Puts turn `turnId` on its turn queue unless a job of it is waiting, delayed or running.
 * @returns true when a job was added
 */
export async function ensureTurnJob(deps: TurnJobDeps, turnId: string): Promise<boolean> {
  const { queue } = deps;
  const state = await queue.jobState(turnQueueOf(turnId), turnId);
  if (state === 'pending') return false;
  if (state === 'ended' && !(await queue.remove(turnQueueOf(turnId), turnId))) return false;
  await enqueueTurnJob(deps, turnId);
  return true;
}
