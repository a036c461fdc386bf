/**
 * Cassettes kept with their runs (./cassette-store.ts) on the in-memory document store, the model a played port:
 * a recording run keeps each finished call of a case; a replay answers from the recorded run's calls of the same
 * case (the same request twice in recorded order), calls no model, reports no usage and keeps what it answered; a
 * request the recording does not hold fails saying where it diverges; a run's cassette mode picks the provider.
 * Source: issue "Evaluations" § Record and replay.
 */
import { describe, expect, it } from 'vitest';
import type { ModelEvent, ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { modelsForCase, recordingTo, replayingFrom } from './cassette-store.ts';
import { evaluationCollections, type EvaluationRunRecord } from './model.ts';

const usage = { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 };
const ask = (text: string): ModelRequest => ({
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: text }],
  promptCache: { enabled: false, ttl: '5m' },
});

function world() {
  let tick = 0;
  let n = 0;
  const docs = createMemoryDocumentStore();
  const deps = {
    docs,
    clock: { now: () => new Date(Date.UTC(2026, 10, 27, 10, 0, 0, tick++)) },
    ids: { newId: () => `c${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
  };
  const asked: string[] = [];
  let answer = 0;
  const model: ModelProvider = {
    async *stream(request) {
      const last = request.messages.at(-1)!;
      asked.push(last.role === 'user' ? last.content : last.role);
      answer += 1;
      yield { type: 'text', text: `answer ` };
      yield { type: 'text', text: `${answer}` };
      yield { type: 'finish', reason: 'stop', usage };
    },
  };
  return { deps, model, asked };
}

const collect = async (events: AsyncIterable<ModelEvent>) => {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};

describe('cassettes kept with their runs', () => {
  it("replays a case's calls from its recording in recorded order, with no model call and no usage", async () => {
    const { deps, model, asked } = world();
    const recording = recordingTo(deps, model, { runId: 'ev-1', caseId: 'answer/a' });
    await collect(recording.stream(ask('hi')));
    await collect(recording.stream(ask('hi')));
    await collect(recordingTo(deps, model, { runId: 'ev-1', caseId: 'answer/b' }).stream(ask('hi')));
    expect(asked).toEqual(['hi', 'hi', 'hi']);
    const replay = replayingFrom(deps, { runId: 'ev-2', caseId: 'answer/a' }, 'ev-1');
    const none = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(await collect(replay.stream(ask('hi')))).toEqual([
      { type: 'text', text: 'answer 1' },
      { type: 'finish', reason: 'stop', usage: none },
    ]);
    expect((await collect(replay.stream(ask('hi'))))[0]).toEqual({ type: 'text', text: 'answer 2' });
    expect(asked).toHaveLength(3);
    // The replay kept what it answered: it can be replayed in turn.
    const again = replayingFrom(deps, { runId: 'ev-3', caseId: 'answer/a' }, 'ev-2');
    expect((await collect(again.stream(ask('hi'))))[0]).toEqual({ type: 'text', text: 'answer 1' });
    // A third ask of the same request was never recorded for this case.
    await expect(collect(replay.stream(ask('hi')))).rejects.toMatchObject({ code: 'cassette_diverged' });
  });

  it('fails a request the recording does not hold, saying where it diverges', async () => {
    const { deps, model } = world();
    await collect(recordingTo(deps, model, { runId: 'ev-1', caseId: 'answer/a' }).stream(ask('hi')));
    const replay = replayingFrom(deps, { runId: 'ev-2', caseId: 'answer/a' }, 'ev-1');
    const changed = {
      ...ask('hi'),
      messages: [{ role: 'system' as const, content: 'Be long.' }, ask('hi').messages[1]!],
    };
    await expect(collect(replay.stream(changed))).rejects.toThrow(
      'this model call of case answer/a is not in the recording of run ev-1: message 1 (system) differs from the ' +
        'recording; the prompt, the tools or an earlier answer changed: record the run again (--record)',
    );
    const other = replayingFrom(deps, { runId: 'ev-2', caseId: 'answer/z' }, 'ev-1');
    await expect(collect(other.stream(ask('hi')))).rejects.toThrow('the cassette holds no call');
  });

  it("picks the provider by the run's cassette: none, record or replay", async () => {
    const { deps, model, asked } = world();
    const runs = deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs);
    const run = (id: string, extra: Partial<EvaluationRunRecord>) =>
      runs.insertOne({ _id: id, ...extra } as EvaluationRunRecord);
    await run('ev-plain', {});
    await run('ev-rec', { cassette: 'record' });
    await run('ev-rep', { cassette: 'replay', replayOf: 'ev-rec' });
    const slot = (runId: string) => ({ runId, caseId: 'answer/a' });
    expect(await modelsForCase(deps, model, slot('ev-plain'))).toBe(model);
    expect(await modelsForCase(deps, model, slot('ev-gone'))).toBe(model);
    await collect((await modelsForCase(deps, model, slot('ev-rec'))).stream(ask('hi')));
    await collect((await modelsForCase(deps, model, slot('ev-rep'))).stream(ask('hi')));
    expect(asked).toEqual(['hi']);
    const calls = deps.docs.collection(evaluationCollections.calls);
    expect(await calls.countDocuments({ runId: 'ev-rec' })).toBe(1);
    expect(await calls.countDocuments({ runId: 'ev-rep' })).toBe(1);
    expect(await calls.countDocuments({ runId: 'ev-plain' })).toBe(0);
  });
});
