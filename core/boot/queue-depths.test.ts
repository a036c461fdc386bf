/**
 * The dispatcher's queue depths from the JobQueue port's counts (a fake port): waiting by lane on a fair queue,
 * active and delayed; a queue whose counts fail is left out. Source: docs/decisions.md D25 § 2.
 */
import { describe, expect, it } from 'vitest';
import type { JobCounts, JobQueue } from '../ports/job-queue.ts';
import { OBSERVED_QUEUES, queueDepths } from './queue-depths.ts';

const counts: Record<string, JobCounts> = {
  turns: { waiting: 5, active: 2, completed: 9, failed: 0, delayed: 0, lanes: { interactive: 1, background: 4 } },
  polls: { waiting: 3, active: 0, completed: 1, failed: 1, delayed: 2 },
};
const queue = {
  counts: (name: string) => (counts[name] ? Promise.resolve(counts[name]) : Promise.reject(new Error('down'))),
} as Pick<JobQueue, 'counts'> as JobQueue;

describe('queue depths', () => {
  it("splits a fair queue's waiting jobs by lane and leaves out a queue it cannot count", async () => {
    expect(await queueDepths(queue, ['turns', 'polls', 'missing'])).toEqual([
      { queue: 'turns', state: 'waiting', lane: 'interactive', jobs: 1 },
      { queue: 'turns', state: 'waiting', lane: 'background', jobs: 4 },
      { queue: 'turns', state: 'active', jobs: 2 },
      { queue: 'turns', state: 'delayed', jobs: 0 },
      { queue: 'polls', state: 'waiting', jobs: 3 },
      { queue: 'polls', state: 'active', jobs: 0 },
      { queue: 'polls', state: 'delayed', jobs: 2 },
    ]);
  });

  it('observes every queue a dispatcher consumes', () => {
    expect(OBSERVED_QUEUES).toEqual(expect.arrayContaining(['turns', 'webhook-firings', 'polls', 'evaluations']));
    expect(new Set(OBSERVED_QUEUES).size).toBe(8);
  });
});
