/**
 * Which queue a turn takes (./turn-jobs.ts): a design chat's turn (its id prefixed `design-`) is added to, looked up
 * on and removed from `design-agent-turns`, every other turn `turns`, whoever queues it (a first add, or the turn
 * sweep's re-queue of a turn whose kept job ended). The queue store is a port, faked here as a record of calls.
 * Source: issue "The design agent" § Runtime (design-agent turns go through their own queue).
 */
import { describe, expect, it } from 'vitest';
import type { JobQueue } from '../ports/job-queue.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { enqueueTurnJob, ensureTurnJob, turnQueueOf } from './turn-jobs.ts';

/** A queue store whose every job has ended (a kept completed job), recording each call as `<op> <queue> <id>`. */
function endedJobs(calls: string[]): JobQueue {
  const queue: JobQueue = {
    add: async (
      queue,
      _name,
      _data,
      options,
    ) => (calls.push(`add ${queue} ${options?.jobId}`), options?.jobId ?? ''),
    jobState: async (
      queue,
      id,
    ) => (calls.push(`state ${queue} ${id}`), 'ended'),
    remove: async (queue, id) => (calls.push(`remove ${queue} ${id}`), true),
    consume: () => ({ stop: async () => undefined }),
    counts: async () => ({
      waiting: 0,
      active: 0,
      completed: 0,
      failed: 0,
      delayed: 0,
    }),
    close: async () => undefined,
  };
  return queue;
}

describe('turn queues', () => {
  it("routes a design chat's turn to design-agent-turns and every other to turns", () => {
    expect(turnQueueOf('design-abc')).toBe('design-agent-turns');
    expect(turnQueueOf('abc')).toBe('turns');
    expect(turnQueueOf('ft-design-abc')).toBe('turns');
  });

  it("adds, looks up and removes each turn's job on its own queue", async () => {
    const calls: string[] = [];
    const queue = endedJobs(calls);
    const docs = createMemoryDocumentStore();
    await enqueueTurnJob({ queue, docs }, 'design-t1');
    await enqueueTurnJob({ queue, docs }, 't2');
    expect(await ensureTurnJob({ queue, docs }, 'design-t3')).toBe(true);
    expect(await ensureTurnJob({ queue, docs }, 't4')).toBe(true);
    expect(calls).toEqual([
      'add design-agent-turns design-t1',
      'add turns t2',
      'state design-agent-turns design-t3',
      'remove design-agent-turns design-t3',
      'add design-agent-turns design-t3',
      'state turns t4',
      'remove turns t4',
      'add turns t4',
    ]);
  });
});
