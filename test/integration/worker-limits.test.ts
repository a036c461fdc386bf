/**
 * Worker limits with real worker processes: memory (a heap that grows, and buffers outside the heap) and
 * wall time each end only that worker, with a message naming the limit, its variable and value; the same
 * launcher then runs the next worker normally.
 * Source: spec/platform-service.md § Rules 7; § Errors (worker exceeds memory or wall-time
 * limit); § Deployment settings (PLATFORM_WORKER_*); § Operational log lines ([worker]).
 */
import { describe, expect, it } from 'vitest';
import { probesEntry, recordingBroker, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

describe('worker limits', () => {
  const { launcher, lines, ended } = testLauncher();
  const { broker } = recordingBroker();
  const stillServes = async (subject: string) => {
    const outcome = await launcher.run({ kind: 'turn', subject, task: 'echo', payload: { ok: subject }, limits: roomyLimits, broker });
    expect(outcome).toEqual({ ended: 'finished', result: { ok: subject } });
    await ended(subject); // its run resolved at the answer: its end line follows
  };

  it.each([
    ['a growing heap', 'allocateHeap'],
    ['buffers outside the heap', 'allocateBuffers'],
  ])('memory: %s ends only that worker, naming PLATFORM_WORKER_TURN_MEMORY_MB', async (_, task) => {
    lines.length = 0;
    const outcome = await launcher.run({ kind: 'turn', subject: `turn t-${task}`, task, payload: null, limits: { memoryMb: 128, wallTimeSeconds: 120 }, broker, entryFile: probesEntry });
    expect(outcome).toEqual({ ended: 'failed', reason: 'exceeded a limit', limit: 'memory', message: 'the turn worker exceeded its memory limit (PLATFORM_WORKER_TURN_MEMORY_MB = 128 MiB)' });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^\\[worker\\] ended turn worker \\d+ for turn t-${task} \\(exceeded a limit\\)$`))]);
    await stillServes('turn t-after-memory');
  });

  it('wall time: a hook looping forever ends at the limit, naming PLATFORM_WORKER_CALL_SECONDS', async () => {
    lines.length = 0;
    const outcome = await launcher.run({
      kind: 'call', subject: 'call c-loop', task: 'hook', limits: { memoryMb: 256, wallTimeSeconds: 1 }, broker,
      payload: { source: 'export default () => { for (;;) {} }', timeoutMs: 600_000 },
    });
    expect(outcome).toEqual({ ended: 'failed', reason: 'exceeded a limit', limit: 'wall time', message: 'the call worker exceeded its wall-time limit (PLATFORM_WORKER_CALL_SECONDS = 1 s)' });
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended call worker \d+ for call c-loop \(exceeded a limit\)$/)]);
    await stillServes('turn t-after-wall-time');
  });

  it('a second worker started alongside one that exceeds its memory limit finishes normally', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const neighbour = launcher.run({
      kind: 'turn', subject: 'turn t-neighbour', task: 'hook', limits: roomyLimits,
      payload: { source: 'export default async () => platform.call("wait")' },
      broker: async () => (await held, 'neighbour done'),
    });
    const heavy = await launcher.run({ kind: 'turn', subject: 'turn t-heavy', task: 'allocateBuffers', payload: null, limits: { memoryMb: 128, wallTimeSeconds: 120 }, broker, entryFile: probesEntry });
    expect(heavy).toMatchObject({ reason: 'exceeded a limit', limit: 'memory' });
    release();
    expect(await neighbour).toEqual({ ended: 'finished', result: 'neighbour done' });
  });
});
