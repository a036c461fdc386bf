/**
 * A run's outcome is known at its worker's answer, not at its process's end (docs/decisions.md D24 § 2), while the
 * worker's slot stays held until the process has ended and its working directory is removed
 * (spec/platform-service.md § Rules 7: at most N workers of a kind at once). Real workers under the real launcher: one
 * that answers and then stays (killed after the grace) and one that answers and then crashes.
 * Source: spec/platform-service.md § Rules 7; § Operational log lines ([worker] ended …).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lingeringEntry, recordingBroker, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

/** Whether process `pid` exists. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a worker that answered', () => {
  it('ends its run at the answer; its slot is freed only once its process has exited and its directory is gone', async () => {
    const { launcher, lines, ended } = testLauncher({ slots: { turn: 1, call: 1 }, killGraceMs: 300 });
    let pid = 0;
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-linger', task: 'any', payload: 'linger', limits: roomyLimits,
      broker: recordingBroker().broker, entryFile: lingeringEntry, onStarted: (started: number) => (pid = started),
    });
    expect(outcome).toEqual({ ended: 'finished', result: { workDir: expect.stringMatching(/cairn-worker-/) } });
    const { workDir } = (outcome as { result: { workDir: string } }).result;
    // Answered, still running: its process and directory exist, its slot is held, its end is not logged yet.
    expect(isRunning(pid)).toBe(true);
    expect(existsSync(workDir)).toBe(true);
    expect(launcher.slots.usage('turn')).toEqual({ running: 1, waiting: 0 });
    expect(lines).toEqual([]);
    // The next turn waits for the slot: when its worker starts, the first one was killed and its directory removed.
    let seen: unknown;
    const next = await launcher.run({
      kind: 'turn', subject: 'turn t-next', task: 'echo', payload: 'next', limits: roomyLimits,
      broker: recordingBroker().broker, onStarted: () => (seen = { running: isRunning(pid), directory: existsSync(workDir) }),
    });
    expect(next).toEqual({ ended: 'finished', result: 'next' });
    expect(seen).toEqual({ running: false, directory: false });
    await ended('turn t-next');
    expect(lines.slice(0, 1)).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-linger \(finished\)$/)]);
  });

  it('keeps its answered outcome when it crashes after answering, and logs it ended finished', async () => {
    const { launcher, ended } = testLauncher({ slots: { turn: 1, call: 1 } });
    const outcome = await launcher.run({
      kind: 'call', subject: 'call c-crash', task: 'any', payload: 'crash', limits: roomyLimits,
      broker: recordingBroker().broker, entryFile: lingeringEntry,
    });
    expect(outcome).toMatchObject({ ended: 'finished' });
    expect(await ended('call c-crash')).toEqual([expect.stringMatching(/^\[worker\] ended call worker \d+ for call c-crash \(finished\)$/)]);
    // Its one slot is given back once it has ended: the next reservation gets it.
    (await launcher.slots.reserve('call'))?.release();
    expect(launcher.slots.usage('call')).toEqual({ running: 0, waiting: 0 });
  });
});
