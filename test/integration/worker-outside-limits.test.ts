/**
 * Limits enforced from outside the worker, whatever its code runs: a hook looping inside QuickJS's native code
 * (`Array.prototype.indexOf` over 2^40 indexes never reaches the interrupt handler, and the worker's own timers
 * never fire) is ended by the launcher at the hook's deadline, and at the workflow's turn_seconds; a worker
 * writing one endless channel line is ended at the line cap. Each names the limit that ended it and frees the
 * slot: the next run of the same single-slot launcher finishes. One case runs the whole path of the issue (a
 * queued turn whose state's before hook loops, run by the dispatcher's turn runner over in-memory stores).
 * Source: spec/platform-service.md § Rules 6–7; docs/decisions.md D17 § 3 (limits hold whatever the code
 * runs).
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import { runQueuedTurn } from '../../core/session/turn-runner.ts';
import { insertSession, insertTurn, turnsOf } from '../../core/session/session-store.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import type { LauncherRunOptions } from '../../core/adapters/worker/index.ts';
import { probesEntry, recordingBroker, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

const nativeLoop = 'export default () => Array.prototype.indexOf.call({ length: 2 ** 40 }, 1)';
const outside = 'it was stopped from outside the worker';

/** A one-state workflow whose state runs the native loop as a before hook. */
function loopingWorkflow(turnSeconds: number): WorkflowView {
  return {
    slug: 'loop', agentPrompt: 'You answer briefly.', disabled: false, promptCache: false, skills: [], callable: {},
    limits: { childDepth: 1, childConcurrency: 1, turnSeconds, modelCallsPerTurn: 5 },
    tools: { allowAlways: [], forbidAlways: [] },
    states: {
      ask: {
        slug: 'ask', type: 'agent', triggers: ['manual'], transitions: [], tools: { allow: [], forbid: [] },
        requires: [], budget: {}, before: [{ name: 'loop', source: nativeLoop, threshold: 0 }], after: [],
      },
    },
  } as unknown as WorkflowView;
}

describe('limits enforced from outside the worker', () => {
  const { launcher, lines, ended } = testLauncher({ slots: { turn: 1, call: 1 } });
  const { broker } = recordingBroker();
  const run = (subject: string, task: string, payload: unknown, more: Partial<LauncherRunOptions> = {}) =>
    launcher.run({ kind: 'turn', subject, task, payload, limits: roomyLimits, broker, ...more });
  const endedLine = (subject: string) =>
    new RegExp(`^\\[worker\\] ended turn worker \\d+ for ${subject} \\(exceeded a limit\\)$`);
  /**
   * The single turn slot is free again (given back once the worker has ended and its directory is removed: a
   * reservation gets it), usage shows none running, and the next run finishes (and ends).
   */
  const slotFree = async () => {
    (await launcher.slots.reserve('turn'))?.release();
    expect(launcher.slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
    lines.length = 0;
    expect(await run('turn t-next', 'echo', 'next')).toEqual({ ended: 'finished', result: 'next' });
    await ended('turn t-next');
  };

  it('a hook looping in native code ends at its 10 s deadline with the hook-limit error; slot freed', async () => {
    lines.length = 0;
    const outcome = await run('turn t-native', 'hook', { source: nativeLoop, timeoutMs: 10_000 });
    expect(outcome).toEqual({
      ended: 'failed', reason: 'exceeded a limit', limit: 'hook time',
      message: `the turn worker exceeded its hook time limit (a hook runs at most 10 s; ${outside})`,
    });
    expect(lines).toEqual([expect.stringMatching(endedLine('turn t-native'))]);
    await slotFree();
  }, 60_000);

  it('a turn stuck in native code ends at the workflow\'s turn_seconds, naming it', async () => {
    const payload = { source: nativeLoop, timeoutMs: 600_000 };
    const outcome = await run('turn t-turn-time', 'hook', payload, { turnSeconds: 1 });
    expect(outcome).toEqual({
      ended: 'failed', reason: 'exceeded a limit', limit: 'turn time',
      message: `the turn worker exceeded its turn time limit (the workflow's turn_seconds = 1 s; ${outside})`,
    });
    await slotFree();
  }, 60_000);

  it('one endless channel line ends the worker at the line cap (the reader keeps at most 32 MiB)', async () => {
    lines.length = 0;
    const outcome = await run('turn t-endless', 'endlessLine', null, { entryFile: probesEntry });
    expect(outcome).toEqual({
      ended: 'failed', reason: 'exceeded a limit', limit: 'channel line',
      message: 'the turn worker exceeded its channel line limit (32 MiB per message)',
    });
    expect(lines).toEqual([expect.stringMatching(endedLine('turn t-endless'))]);
    await slotFree();
  }, 60_000);

  it('a queued turn whose before hook loops in native code fails with the hook limit; the slot is free', async () => {
    const stores = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore() };
    const store = { ...stores, clock: systemClock, ids: cryptoIds };
    const deps = {
      ...store, launcher, models: createAiModelProvider({ models: undefined }), costOf: () => 0,
      instanceId: 'test', promptCache: { enabled: false, ttl: '5m' as const }, limits: roomyLimits,
      workflowOf: async () => loopingWorkflow(600),
      catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) },
    };
    const session = await insertSession(store, {
      orgId: 'o', agentId: 'a', environment: 'main', workflow: 'loop', buildId: 'b', commitId: 'c', state: 'ask',
      variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [],
    });
    const turn = await insertTurn(store, session, { kind: 'prompt', input: { message: 'Go.' } });
    await runQueuedTurn(deps as never, turn._id);
    const settled = await turnsOf(store).findOne({ _id: turn._id });
    const message = expect.stringMatching(/^the turn worker exceeded its hook time limit \(a hook runs at most 10 s/);
    expect(settled).toMatchObject({ status: 'failed', error: { code: 'worker_limit', message } });
    await slotFree();
  }, 60_000);
});
