/**
 * The dispatcher's bounded stop (./stop-work.ts) with consumers standing in for the job queue port's: work that ends
 * within the grace is left to end; work still running at the grace's end is interrupted; a consumer that never closes
 * is given up on, so the process still exits.
 */
import { describe, expect, it } from 'vitest';
import { stopWork, type StoppableConsumer } from './stop-work.ts';

/** A consumer whose stop resolves when `ends` does. */
const consumer = (ends: Promise<unknown>): StoppableConsumer => ({ stop: async () => { await ends; } });
const never = new Promise<never>(() => undefined);

describe('stopWork', () => {
  it('lets work that ends within the grace end, interrupting nothing', async () => {
    const interrupt = new AbortController();
    const lines: string[] = [];
    const outcome = await stopWork({
      consumers: [consumer(Promise.resolve()), consumer(new Promise((r) => setTimeout(r, 10)))],
      graceMs: 60_000, interrupt, runningTurns: () => 1, log: (l) => lines.push(l),
    });
    expect(outcome).toBe('drained');
    expect(interrupt.signal.aborted).toBe(false);
    expect(lines).toEqual(['stopping: taking no more work; 1 turn(s) running get 60 s to end']);
  });

  it('interrupts the turns still running when the grace has passed, then waits for their consumers', async () => {
    const interrupt = new AbortController();
    const ended = new Promise((resolve) => interrupt.signal.addEventListener('abort', resolve));
    const lines: string[] = [];
    const outcome = await stopWork({
      consumers: [consumer(ended)], graceMs: 20, interrupt, runningTurns: () => 2, log: (l) => lines.push(l),
    });
    expect(outcome).toBe('interrupted');
    expect(lines[1]).toBe('stop grace of 0.02 s passed: ending 2 running turn(s) failed, interrupted by a platform '
      + 'restart, and stopping their workers');
  });

  it('gives up on a consumer that never closes, and on one whose close fails, so the process exits', async () => {
    const lines: string[] = [];
    const failing: StoppableConsumer = { stop: () => Promise.reject(new Error('connection lost')) };
    const outcome = await stopWork({
      consumers: [consumer(never), failing], graceMs: 10, afterInterruptMs: 10, interrupt: new AbortController(),
      runningTurns: () => 0, log: (l) => lines.push(l),
    });
    expect(outcome).toBe('abandoned');
    expect(lines).toContain('a queue consumer did not close cleanly: connection lost');
    expect(lines.at(-1)).toMatch(/^queue consumers still busy 0.01 s after the turns were interrupted: exiting without/);
  });
});
