/**
 * Contract suite of the {@link JobQueue} port: every adapter registers it from its own test file and
 * must pass it unchanged. Waits poll for an outcome (behaviour), never assert how long it took.
 *
 * Source: docs/architecture.md § Ports and adapters; spec/platform-service.md
 * § Processes (dispatcher consumes every queue).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobQueue } from '../ports/job-queue.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';

/**
 * What the factory of {@link jobQueueContract} returns for one test.
 *
 * Source: docs/architecture.md § Ports and adapters.
 */
export interface JobQueueFixture {
  /** A job queue whose queues hold no jobs. */
  queue: JobQueue;
  /** Closes the queue and removes its data. */
  cleanup(): Promise<void>;
}

/** A job as a handler sees it. */
type SeenJob = { id: string; name: string; data: unknown };

/**
 * Polls `check` every 25 ms until it passes or `timeoutMs` (default 10 000) has gone by.
 *
 * Source: docs/architecture.md § Ports and adapters.
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const deadline = systemClock.now().getTime() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (systemClock.now().getTime() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** A promise plus the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const ZERO = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 };

/**
 * Registers the JobQueue contract as a vitest `describe` block named `JobQueue contract: <name>`.
 * @param name - adapter name shown in test output
 * @param make - creates a fresh job queue per test
 *
 * Source: docs/architecture.md § Ports and adapters.
 */
export function jobQueueContract(name: string, make: () => Promise<JobQueueFixture>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let fixture: JobQueueFixture;
    const stops: Array<{ stop(): Promise<void> }> = [];
    const queue = () => fixture.queue;
    const consume = (...args: Parameters<JobQueue['consume']>) => {
      const consumer = fixture.queue.consume(...args);
      stops.push(consumer);
      return consumer;
    };
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      for (const consumer of stops.splice(0)) await consumer.stop();
      await fixture.cleanup();
    });
    registerRunCases(queue, consume);
    registerFailureAndConcurrencyCases(queue, consume);
    registerCountCases(queue, consume);
    registerStopCases(queue, consume);
  });
}

type Consume = (...args: Parameters<JobQueue['consume']>) => { stop(): Promise<void> };

function registerRunCases(queue: () => JobQueue, consume: Consume): void {
  it('runs an added job with its id, name and JSON data', async () => {
    const seen: SeenJob[] = [];
    consume('turns', async (job) => void seen.push(job));
    const data = { agentId: 'a1', list: [1, 'two', null, { deep: true }], text: 'ünïcødé ✓', n: 1.5 };
    const id = await queue().add('turns', 'run-turn', data);
    expect(typeof id).toBe('string');
    await eventually(() => expect(seen).toEqual([{ id, name: 'run-turn', data }]));
    await eventually(async () => expect(await queue().counts('turns')).toEqual({ ...ZERO, completed: 1 }));
  });

  it('adds a job once per jobId, also after it completed', async () => {
    expect(await queue().add('turns', 'run-turn', { n: 1 }, { jobId: 'turn-1' })).toBe('turn-1');
    expect(await queue().add('turns', 'run-turn', { n: 2 }, { jobId: 'turn-1' })).toBe('turn-1');
    expect(await queue().counts('turns')).toEqual({ ...ZERO, waiting: 1 });
    const seen: SeenJob[] = [];
    consume('turns', async (job) => void seen.push(job));
    await eventually(async () => expect(await queue().counts('turns')).toEqual({ ...ZERO, completed: 1 }));
    expect(await queue().add('turns', 'run-turn', { n: 3 }, { jobId: 'turn-1' })).toBe('turn-1');
    expect(await queue().counts('turns')).toEqual({ ...ZERO, completed: 1 });
    expect(seen).toEqual([{ id: 'turn-1', name: 'run-turn', data: { n: 1 } }]);
  });
}

function registerFailureAndConcurrencyCases(queue: () => JobQueue, consume: Consume): void {
  it('fails a job whose handler throws, once, keeps it as failed, and runs later jobs', async () => {
    const calls: string[] = [];
    consume('turns', async (job) => {
      calls.push(job.name);
      if (job.name === 'bad') throw new Error('handler failed');
    });
    await queue().add('turns', 'bad', {});
    await queue().add('turns', 'good', {});
    await eventually(async () => expect(await queue().counts('turns')).toEqual({ ...ZERO, completed: 1, failed: 1 }));
    expect(calls).toEqual(['bad', 'good']);
  });

  it('runs up to `concurrency` jobs at once', async () => {
    const both = gate();
    let running = 0;
    let most = 0;
    let done = 0;
    consume(
      'turns',
      async () => {
        running += 1;
        most = Math.max(most, running);
        if (running === 2) both.open();
        await both.opened;
        running -= 1;
        done += 1;
      },
      { concurrency: 2 },
    );
    for (let i = 0; i < 3; i++) await queue().add('turns', 'run-turn', { i });
    await eventually(() => expect(done).toBe(3));
    expect(most).toBe(2);
  });

  it('shares one queue between consumers: each job runs once', async () => {
    const seen: string[] = [];
    consume('turns', async (job) => void seen.push(job.id));
    consume('turns', async (job) => void seen.push(job.id));
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => queue().add('turns', 'run-turn', { i })));
    await eventually(() => expect([...seen].sort()).toEqual([...ids].sort()));
  });
}

function registerCountCases(queue: () => JobQueue, consume: Consume): void {
  it('counts jobs per state; an unknown queue counts zero', async () => {
    expect(await queue().counts('never-used')).toEqual(ZERO);
    await queue().add('turns', 'a', {});
    await queue().add('turns', 'b', {});
    await queue().add('turns', 'later', {}, { delayMs: 60_000 });
    expect(await queue().counts('turns')).toEqual({ ...ZERO, waiting: 2, delayed: 1 });
    const running = gate();
    const release = gate();
    consume('turns', async () => {
      running.open();
      await release.opened;
    });
    await running.opened;
    await eventually(async () =>
      expect(await queue().counts('turns')).toEqual({ ...ZERO, waiting: 1, active: 1, delayed: 1 })
    );
    release.open();
    await eventually(async () => expect(await queue().counts('turns')).toEqual({ ...ZERO, completed: 2, delayed: 1 }));
  });

  it('runs a delayed job once its delay has passed', async () => {
    const seen: string[] = [];
    consume('turns', async (job) => void seen.push(job.name));
    await queue().add('turns', 'later', {}, { delayMs: 300 });
    await eventually(() => expect(seen).toEqual(['later']));
  });

  it('keeps queues apart', async () => {
    const seen: string[] = [];
    consume('sweeps', async (job) => void seen.push(job.name));
    await queue().add('turns', 'turn', {});
    await queue().add('sweeps', 'sweep', {});
    await eventually(() => expect(seen).toEqual(['sweep']));
    expect(await queue().counts('turns')).toEqual({ ...ZERO, waiting: 1 });
  });
}

function registerStopCases(queue: () => JobQueue, consume: Consume): void {
  it('stops after running handlers finish; later jobs wait for another consumer', async () => {
    const started = gate();
    const release = gate();
    let finished = false;
    const consumer = consume('turns', async () => {
      started.open();
      await release.opened;
      finished = true;
    });
    await queue().add('turns', 'first', {});
    await started.opened;
    const stopped = consumer.stop();
    release.open();
    await stopped;
    expect(finished).toBe(true);
    await queue().add('turns', 'second', {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await queue().counts('turns')).toEqual({ ...ZERO, waiting: 1, completed: 1 });
    const seen: string[] = [];
    consume('turns', async (job) => void seen.push(job.name));
    await eventually(() => expect(seen).toEqual(['second']));
  });
}
