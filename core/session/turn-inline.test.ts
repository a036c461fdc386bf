/**
 * Turns with nothing to sandbox (docs/decisions.md D24 § 2): which turns need no worker, and that the runner runs
 * those itself with the real engine over the real store host (the in-memory stores), recording what a worker's run
 * would, while every other turn still goes to the launcher. The launcher is a port fake that counts its runs and
 * runs the real engine in-process over the run's broker, as bins/worker/turn.ts does.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { WorkerSlots } from '../adapters/worker/slots.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { runTurn } from './run-turn.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { type TurnContext, type TurnHost, turnHostMethods } from './turn-host.ts';
import { needsNoWorker } from './turn-inline.ts';
import { runQueuedTurn, type TurnRunnerDeps } from './turn-runner.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';

const state = (slug: string, more: Partial<StateView> = {}): StateView => ({
  slug,
  type: 'agent',
  triggers: [],
  transitions: [],
  tools: { allow: [], forbid: [] },
  requires: [],
  budget: {},
  before: [],
  after: [],
  ...more,
});

const hook = { name: 'hooks/check.js', source: 'export default {}', threshold: 0 };

const workflow: WorkflowView = {
  slug: 'intake',
  agentPrompt: 'You answer briefly.',
  disabled: false,
  promptCache: false,
  skills: [],
  callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 },
  tools: { allowAlways: [], forbidAlways: [] },
  states: {
    received: state('received', { triggers: ['hook'] }),
    summed: state('summed', { instructions: 'Sum it up.' }),
    hooked: state('hooked', { before: [hook] }),
    approve: state('approve', { type: 'human', transitions: [{ to: 'received', description: 'Approved.' }] }),
    ask: state('ask', { transitions: [{ to: 'received', description: 'Answered.' }] }),
  },
};

/** A turn's context in state `slug` (a `decision` turn's `to` is `slug`; it starts in `approve`). */
function context(slug: string, more: { kind?: TurnContext['kind']; entered?: boolean; child?: boolean } = {}) {
  const kind = more.kind ?? 'delivery';
  const session = {
    state: kind === 'decision' ? 'approve' : slug,
    visit: { modelCalls: 0, parks: 0, entered: more.entered ?? false },
    pending: more.child ? { kind: 'input', childSessionId: 's2' } : null,
    variables: {},
  };
  const input = kind === 'decision' ? { decision: { to: slug, by: 'm1' } } : {};
  return { turnId: 't1', kind, input, session, workflow, messages: [] } as unknown as TurnContext;
}

describe('which turns need no worker', () => {
  it('a terminal state without instructions or before hooks, and a human state, need none', () => {
    expect(needsNoWorker(context('received'))).toBe(true);
    expect(needsNoWorker(context('approve'))).toBe(true);
    expect(needsNoWorker(context('received', { kind: 'decision' }))).toBe(true);
    // Its before hooks ran on an earlier visit's turn.
    expect(needsNoWorker(context('hooked', { entered: true }))).toBe(true);
  });

  it('a model call, a hook, an agent state, a child session or an unknown state need a worker', () => {
    expect(needsNoWorker(context('summed'))).toBe(false);
    expect(needsNoWorker(context('hooked'))).toBe(false);
    expect(needsNoWorker(context('hooked', { kind: 'decision' }))).toBe(false);
    expect(needsNoWorker(context('ask'))).toBe(false);
    expect(needsNoWorker(context('ask', { kind: 'decision' }))).toBe(false);
    expect(needsNoWorker(context('received', { child: true }))).toBe(false);
    expect(needsNoWorker(context('nowhere'))).toBe(false);
  });
});

/** A ModelProvider fake (a port) answering every call "Noted." */
const model: ModelProvider = {
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'text', text: 'Noted.' };
    yield {
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
};

/** A launcher (port fake) counting its runs; each runs the engine in-process over the run's broker. */
function countingLauncher() {
  const slots = new WorkerSlots({ turn: 1, call: 1 });
  const runs: string[] = [];
  const launcher: WorkerLauncher = {
    reserve: (kind, signal) => slots.reserve(kind, signal),
    run: (options: WorkerRunOptions) =>
      slots.runInSlot(options, async () => {
        runs.push(options.subject);
        const host = {} as Record<string, unknown>;
        for (const method of turnHostMethods) host[method] = (...a: unknown[]) => options.broker(`turn.${method}`, a);
        const { turnId, context } = options.payload as { turnId: string; context?: TurnContext };
        const engine = { host: host as unknown as TurnHost, hooks: { run: async () => null }, now: () => Date.now() };
        return { ended: 'finished', result: await runTurn(engine, turnId, context) };
      }),
  };
  return { launcher, runs };
}

async function product() {
  let n = 0;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids };
  const { launcher, runs } = countingLauncher();
  const deps = {
    ...store,
    launcher,
    models: model,
    costOf: () => 0,
    catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) },
    promptCache: { enabled: false, ttl: '5m' },
    limits: { memoryMb: 256, wallTimeSeconds: 60 },
    instanceId: 'dispatcher-1',
    workflowOf: async () => workflow,
  } as unknown as TurnRunnerDeps;
  const open = async (at: string) => {
    const session = await insertSession(store, {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: 'intake',
      buildId: 'b1',
      commitId: 'c1',
      state: at,
      variables: {},
      lockedVariables: [],
      trigger: 'hook',
      depth: 0,
      inheritedForbid: [],
    });
    const turn = await insertTurn(store, session, { kind: 'delivery', input: { message: '{"order":7}' } });
    return { session, turn };
  };
  return { store, deps, runs, open };
}

describe('the runner and a turn with nothing to sandbox', () => {
  it('ends a terminal entry itself, with what a worker would record, and sends a model call to a worker', async () => {
    const { store, deps, runs, open } = await product();
    const plain = await open('received');
    await runQueuedTurn(deps, plain.turn._id);
    expect(runs).toEqual([]);
    expect((await turnsOf(store).findOne({ _id: plain.turn._id }))?.status).toBe('succeeded');
    const ended = await sessionsOf(store).findOne({ _id: plain.session._id });
    expect(ended).toMatchObject({ status: 'succeeded', state: 'received' });

    const summed = await open('summed');
    await runQueuedTurn(deps, summed.turn._id);
    expect(runs).toEqual([`turn ${summed.turn._id}`]);
    expect((await turnsOf(store).findOne({ _id: summed.turn._id }))?.status).toBe('succeeded');
  });

  it('parks on a human state without a worker; a hooked state still gets one', async () => {
    const { store, deps, runs, open } = await product();
    const human = await open('approve');
    await runQueuedTurn(deps, human.turn._id);
    expect(runs).toEqual([]);
    const parked = await sessionsOf(store).findOne({ _id: human.session._id });
    expect(parked).toMatchObject({ status: 'awaiting_decision', state: 'approve', pending: { kind: 'decision' } });

    const hooked = await open('hooked');
    await runQueuedTurn(deps, hooked.turn._id);
    expect(runs).toEqual([`turn ${hooked.turn._id}`]);
  });
});
