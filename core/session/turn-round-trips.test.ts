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
import { brokerState as state, testWorkflow } from '../../test/helpers/broker-workflow.ts';
import { inProcessLauncher, runnerWorld } from '../../test/helpers/runner-world.ts';
import type { ModelEvent, ModelProvider } from '../ports/model-provider.ts';
import { countingDocumentStore } from '../testing/counting-document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { sessionsOf, turnsOf } from './session-store.ts';
import { runQueuedTurn } from './turn-runner.ts';

const workflow = testWorkflow('chat', {
  ask: state('ask', { triggers: ['manual'], transitions: [{ to: 'done', description: 'Answered.' }] }),
  done: state('done'),
});

/** A ModelProvider fake (a port) answering every call "Forty-two." */
const model: ModelProvider = {
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'text', text: 'Forty-two.' };
    const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
    yield { type: 'finish', reason: 'stop', usage };
  },
};

describe('the round trips of a plain turn', () => {
  it('sends the context with the job and writes the message and the reply in two checkpoints', async () => {
    const docs = countingDocumentStore(createMemoryDocumentStore());
    const { launcher, ops, reads } = inProcessLauncher(() => docs.reads());
    const { store, deps, queuedTurn } = runnerWorld({ launcher, workflow, docs, more: { models: model } });
    const { session, turn } = await queuedTurn('ask', { message: 'What is six times seven?' });

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
