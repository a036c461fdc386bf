/**
 * A worker run's progress as the launcher reports it for the turn's timeline: its process spawned, its channel
 * ready (the worker read its job), and a hook it announced starting and ending, in that order, from a real worker
 * process running a real QuickJS hook. Source: docs/decisions.md D25 (observability).
 */
import { describe, expect, it } from 'vitest';
import type { WorkerProgress } from '../../core/ports/worker.ts';
import { recordingBroker, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

describe('a worker run\'s progress', () => {
  it('is reported spawned, ready, then the hook\'s start and end', async () => {
    const { launcher } = testLauncher();
    const progress: WorkerProgress[] = [];
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-progress', task: 'hook', limits: roomyLimits,
      payload: { source: 'export default (input) => ({ doubled: input.n * 2 })', input: { n: 21 } },
      broker: recordingBroker().broker,
      onProgress: (step) => progress.push(step),
    });
    expect(outcome).toEqual({ ended: 'finished', result: { doubled: 42 } });
    expect(progress.map((p) => p.kind === 'hook' ? `hook ${p.ended ? 'ended' : 'started'}` : p.kind)).toEqual([
      'spawned', 'ready', 'hook started', 'hook ended',
    ]);
    const hooks = progress.filter((p) => p.kind === 'hook');
    expect(new Set(hooks.map((p) => p.kind === 'hook' && p.id)).size).toBe(1);
  });
});
