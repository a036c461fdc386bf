/**
 * The gauge `cairn.queue.depth` of a dispatcher: the jobs of every queue it consumes, by state (waiting ones of a
 * fair queue by lane), read from the queue store at each collection of the metrics (a scrape or an OTLP export)
 * and never per request or job. Source: docs/decisions.md D25 § 2.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { observeQueueDepths, type QueueDepth } from '../telemetry/instruments.ts';
import { ENVIRONMENT_OPERATIONS_QUEUE } from '../agent/operations-model.ts';
import { DEPLOYMENT_QUEUE } from '../deployment/model.ts';
import { EVALUATION_QUEUE } from '../evaluation/model.ts';
import { DESIGN_TURN_QUEUE, TURN_QUEUE } from '../session/turn-jobs.ts';
import { TRIGGER_QUEUE } from '../trigger/completion-firings.ts';
import { POLL_QUEUE } from '../trigger/poll-sweep.ts';
import { WEBHOOK_FIRING_QUEUE } from '../trigger/webhook-firings.ts';

/** Every queue a dispatcher consumes (docs/architecture.md § Queues and collections). */
export const OBSERVED_QUEUES: readonly string[] = [
  TURN_QUEUE,
  DESIGN_TURN_QUEUE,
  WEBHOOK_FIRING_QUEUE,
  TRIGGER_QUEUE,
  POLL_QUEUE,
  EVALUATION_QUEUE,
  ENVIRONMENT_OPERATIONS_QUEUE,
  DEPLOYMENT_QUEUE,
];

/** The depths of `queues` now (a queue whose counts fail is left out). */
export async function queueDepths(queue: JobQueue, queues: readonly string[]): Promise<QueueDepth[]> {
  const counted = await Promise.all(queues.map(async (name) => {
    const counts = await queue.counts(name).catch(() => undefined);
    if (!counts) return [];
    const waiting: QueueDepth[] = counts.lanes
      ? (['interactive', 'background'] as const).map((lane) => ({
        queue: name,
        state: 'waiting' as const,
        lane,
        jobs: counts.lanes?.[lane] ?? 0,
      }))
      : [{ queue: name, state: 'waiting', jobs: counts.waiting }];
    return [
      ...waiting,
      { queue: name, state: 'active' as const, jobs: counts.active },
      { queue: name, state: 'delayed' as const, jobs: counts.delayed },
    ];
  }));
  return counted.flat();
}

/**
 * Observes the depths of every queue of {@link OBSERVED_QUEUES} on `queue` (no-op without a started SDK).
 * @returns stops observing
 */
export function observeDispatcherQueues(queue: JobQueue): () => void {
  return observeQueueDepths(() => queueDepths(queue, OBSERVED_QUEUES));
}
