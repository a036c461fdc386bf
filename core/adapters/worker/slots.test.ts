/**
 * Worker slots hold a run's slot until its worker has ended, not until its outcome is known (docs/decisions.md D24
 * § 2; spec/platform-service.md § Rules 7: at most N workers of a kind at once): a run resolves with its outcome while
 * its `ended` is pending, and a slot reserved before the run becomes the run's, so its holder's own release (the turn
 * runner's, once the run returned) frees nothing early.
 */
import { describe, expect, it } from 'vitest';
import type { WorkerOutcome } from '../../ports/worker.ts';
import { WorkerSlots } from './slots.ts';

const finished: WorkerOutcome = { ended: 'finished', result: 'done' };

/** A promise and the function that settles it. */
function pending(): { promise: Promise<void>; settle(): void } {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

describe('worker slots', () => {
  it('resolve a run at its outcome and free its slot only once its worker has ended', async () => {
    const slots = new WorkerSlots({ turn: 1, call: 1 });
    const exit = pending();
    expect(await slots.runHeld({ kind: 'turn' }, async () => ({ outcome: finished, ended: exit.promise }))).toEqual(
      finished,
    );
    expect(slots.usage('turn')).toEqual({ running: 1, waiting: 0 });
    const next = slots.reserve('turn');
    await Promise.resolve();
    expect(slots.usage('turn')).toEqual({ running: 1, waiting: 1 });
    exit.settle();
    (await next)?.release();
    expect(slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });

  it("make a reserved slot the run's: its holder's release after the run returned frees nothing early", async () => {
    const slots = new WorkerSlots({ turn: 1, call: 1 });
    const slot = (await slots.reserve('turn'))!;
    const exit = pending();
    await slots.runHeld({ kind: 'turn', slot }, async () => ({ outcome: finished, ended: exit.promise }));
    slot.release();
    expect(slots.usage('turn')).toEqual({ running: 1, waiting: 0 });
    exit.settle();
    await exit.promise;
    await Promise.resolve();
    expect(slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });

  it('free a reserved slot its holder releases without a run, and a slot whose start throws', async () => {
    const slots = new WorkerSlots({ turn: 1, call: 1 });
    (await slots.reserve('turn'))!.release();
    expect(slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
    const failing = slots.runHeld({ kind: 'turn' }, () => Promise.reject(new Error('no start')));
    await expect(failing).rejects.toThrow('no start');
    expect(slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });
});
