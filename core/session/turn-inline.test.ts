/**
 * Turns with nothing to sandbox (docs/decisions.md D24 § 2): which turns need no worker, and that the runner runs
 * those itself with the real engine over the real store host (the in-memory stores), recording what a worker's run
 * would, while every other turn still goes to the launcher. The launcher is a port fake that counts its runs and
 * runs the real engine in-process over the run's broker, as bins/worker/turn.ts does.
 */
import { describe, expect, it } from 'vitest';
import { brokerState as state, testWorkflow } from '../../test/helpers/broker-workflow.ts';
import { inProcessLauncher, runnerWorld } from '../../test/helpers/runner-world.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { sessionCollections } from './model.ts';
import { sessionsOf, turnsOf } from './session-store.ts';
import { failStaleTurns } from './stale-turns.ts';
import type { TurnContext } from './turn-host.ts';
import { needsNoWorker } from './turn-inline.ts';
import { runQueuedTurn } from './turn-runner.ts';

const hook = { name: 'hooks/check.js', source: 'export default {}', threshold: 0 };

const workflow = testWorkflow('intake', {
  received: state('received', { triggers: ['hook'] }),
  summed: state('summed', { instructions: 'Sum it up.' }),
  hooked: state('hooked', { before: [hook] }),
  approve: state('approve', { type: 'human', transitions: [{ to: 'received', description: 'Approved.' }] }),
  ask: state('ask', { transitions: [{ to: 'received', description: 'Answered.' }] }),
});

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

/**
 * `docs` as seen by a process that dies at the first write to `session_turns` whose `$set` ends the turn
 * (`status` not `running`): that write and every call after it fail, as if the process were gone.
 */
function dyingAtTurnEnd(docs: DocumentStore): DocumentStore {
  let dead = false;
  const gone = () => Promise.reject(new Error('the dispatcher process was killed'));
  return {
    collection: (name) =>
      new Proxy(docs.collection(name), {
        get: (inner, key: string) => (...args: unknown[]) => {
          const update = args[1] as { $set?: { status?: string } } | undefined;
          const ends = name === sessionCollections.turns && key === 'updateOne' && update?.$set?.status !== undefined &&
            update.$set.status !== 'running';
          if (ends) dead = true;
          if (dead) return gone();
          return (inner as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[key](...args);
        },
      }),
    close: () => docs.close(),
  };
}

/** A runner over the in-memory stores whose launcher counts its runs; `open` queues a delivery turn at a state. */
function world(docs?: DocumentStore) {
  const { launcher, runs } = inProcessLauncher();
  const { store, deps, queuedTurn } = runnerWorld({ launcher, workflow, docs, more: { models: model } });
  const open = (at: string) => queuedTurn(at, { kind: 'delivery', message: '{"order":7}' });
  return { store, deps, runs, open };
}

describe('the runner and a turn with nothing to sandbox', () => {
  it('ends a terminal entry itself, with what a worker would record, and sends a model call to a worker', async () => {
    const { store, deps, runs, open } = world();
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
    const { store, deps, runs, open } = world();
    const human = await open('approve');
    await runQueuedTurn(deps, human.turn._id);
    expect(runs).toEqual([]);
    const parked = await sessionsOf(store).findOne({ _id: human.session._id });
    expect(parked).toMatchObject({ status: 'awaiting_decision', state: 'approve', pending: { kind: 'decision' } });

    const hooked = await open('hooked');
    await runQueuedTurn(deps, hooked.turn._id);
    expect(runs).toEqual([`turn ${hooked.turn._id}`]);
  });

  it("a dispatcher killed at the turn's end write leaves it to the stale-turn sweep, as for a worker", async () => {
    const docs = createMemoryDocumentStore();
    const { store, deps, runs, open } = world(dyingAtTurnEnd(docs));
    const plain = await open('received');
    await runQueuedTurn(deps, plain.turn._id).catch(() => undefined);
    expect(runs).toEqual([]);
    const survivor = { ...store, docs, clock: { now: () => new Date(Date.now() + 61_000) } };
    expect((await turnsOf(survivor).findOne({ _id: plain.turn._id }))?.status).toBe('running');
    expect(await failStaleTurns(survivor)).toEqual([plain.turn._id]);
    expect(await turnsOf(survivor).findOne({ _id: plain.turn._id })).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted' },
    });
    expect((await sessionsOf(survivor).findOne({ _id: plain.session._id }))?.status).toBe('failed');
    expect(await failStaleTurns(survivor)).toEqual([]);
  });
});
