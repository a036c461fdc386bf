/**
 * The round trips of a plain turn between its worker and the broker (a turn should cost about one process start): the
 * turn's context goes with the job, so the worker never asks for it, and a turn that takes a message and gets a reply
 * writes two checkpoints (the message with the state's entry, the reply with its park), not four, each request reading
 * the turn's records once. The launcher is a
 * port fake whose worker runs the real engine in-process, each host method a request to the run's broker (as
 * bins/worker/turn.ts does); the stores are the in-memory ports.
 * Source: docs/architecture.md § Life of a turn.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { WorkerSlots } from '../adapters/worker/slots.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { countingDocumentStore } from '../testing/counting-document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { runTurn } from './run-turn.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { type TurnContext, type TurnHost, turnHostMethods } from './turn-host.ts';
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

const workflow: WorkflowView = {
  slug: 'chat',
  agentPrompt: 'You answer briefly.',
  disabled: false,
  promptCache: false,
  skills: [],
  callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 },
  tools: { allowAlways: [], forbidAlways: [] },
  states: {
    ask: state('ask', { triggers: ['manual'], transitions: [{ to: 'done', description: 'Answered.' }] }),
    done: state('done'),
  },
};

/** A ModelProvider fake (a port) answering every call "Forty-two." */
const model: ModelProvider = {
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'text', text: 'Forty-two.' };
    const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
    yield { type: 'finish', reason: 'stop', usage };
  },
};

/**
 * A launcher (port fake) whose worker runs the engine in-process over the run's broker; `ops` lists its requests and
 * `reads` the store reads the broker made for each (`counted`: the store's read count).
 */
function inProcessLauncher(counted: () => number) {
  const slots = new WorkerSlots({ turn: 1, call: 1 });
  const ops: string[] = [];
  const reads: number[] = [];
  const launcher: WorkerLauncher = {
    reserve: (kind, signal) => slots.reserve(kind, signal),
    run: (options: WorkerRunOptions) =>
      slots.runInSlot(options, async () => {
        const host = {} as Record<string, unknown>;
        for (const method of turnHostMethods) {
          host[method] = async (...args: unknown[]) => {
            ops.push(`turn.${method}`);
            const before = counted();
            try {
              return await options.broker(`turn.${method}`, args);
            } finally {
              reads.push(counted() - before);
            }
          };
        }
        const { turnId, context } = options.payload as { turnId: string; context?: TurnContext };
        const hooks = { run: async () => null };
        const result = await runTurn(
          { host: host as unknown as TurnHost, hooks, now: () => Date.now() },
          turnId,
          context,
        );
        return { ended: 'finished', result };
      }),
  };
  return { launcher, ops, reads };
}

describe('the round trips of a plain turn', () => {
  it('sends the context with the job and writes the message and the reply in two checkpoints', async () => {
    let n = 0;
    const ids = {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: async () => '0',
    };
    const docs = countingDocumentStore(createMemoryDocumentStore());
    const store = { docs, objects: createMemoryObjectStore(), clock: systemClock, ids };
    const { launcher, ops, reads } = inProcessLauncher(() => docs.reads());
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
    const session = await insertSession(store, {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: 'chat',
      buildId: 'b1',
      commitId: 'c1',
      state: 'ask',
      variables: {},
      lockedVariables: [],
      trigger: 'manual',
      depth: 0,
      inheritedForbid: [],
    });
    const turn = await insertTurn(store, session, { kind: 'prompt', input: { message: 'What is six times seven?' } });

    await runQueuedTurn(deps, turn._id);

    expect(ops).toEqual(['turn.checkpoint', 'turn.callModel', 'turn.checkpoint', 'turn.endTurn']);
    // Each request reads the turn and its session once (a checkpoint writes to those very records); a model call also
    // reads every spend cap that could apply in one query (docs/decisions.md D24 § 2).
    expect(reads).toEqual([2, 3, 2, 2]);
    expect((await turnsOf(store).findOne({ _id: turn._id }))?.status).toBe('awaiting_input');
    const parked = await sessionsOf(store).findOne({ _id: session._id });
    expect(parked).toMatchObject({ status: 'awaiting_input', state: 'ask', pending: { kind: 'input' } });
    expect(parked?.visit).toEqual({ modelCalls: 1, parks: 1, entered: true });
  });
});
