/**
 * Record and replay of model calls (core/evaluation/cassette.ts) around the real ModelProvider adapter and the
 * scripted OpenAI-compatible server on loopback: a recorded conversation (text streamed in pieces, a tool call, its
 * result sent back) replays with the server closed and the same events; the same request twice replays in recorded
 * order; a changed prompt, an extra message or another model fails saying where it diverges; a failed call is not
 * recorded. Source: issue "Evaluations" § Record and replay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import {
  emptyCassette, recordingProvider, replayingProvider, requestFingerprint, type Cassette,
} from '../../core/evaluation/cassette.ts';
import type { ModelEvent, ModelMessage, ModelRequest } from '../../core/ports/model-provider.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from '../helpers/scripted-model-server.ts';

const CACHE = { enabled: true, ttl: '5m' as const };
const LOOKUP = { name: 'lookup_airport', description: 'Find an airport', inputSchema: { type: 'object', properties: { iata: { type: 'string' } } } };

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function recorder(turns: ScriptedTurn[], cassette: Cassette) {
  server = await startScriptedModelServer(turns);
  const models = { providers: [{ id: 'local', type: 'openai-compatible' as const, apiBaseUrl: server.baseUrl }], offered: [{ id: 'scripted', provider: 'local', prices: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } }] };
  return recordingProvider(createAiModelProvider({ models, maxRetries: 0 }), cassette);
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The events with text deltas joined, as a replay gives them. */
const joined = (events: ModelEvent[]) => {
  const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
  return [...(text ? [{ type: 'text', text }] : []), ...events.filter((e) => e.type !== 'text')];
};

const ask = (messages: ModelMessage[], model = 'scripted'): ModelRequest => ({ model, messages, tools: [LOOKUP], promptCache: CACHE });
const first: ModelMessage[] = [{ role: 'system', content: 'You answer about airports.' }, { role: 'user', content: 'Where is SFO?' }];

describe('model cassettes', () => {
  it('records a conversation with a tool call and replays it with no model call, the same events', async () => {
    const cassette = emptyCassette();
    const recording = await recorder([
      { toolCalls: [{ name: 'lookup_airport', arguments: { iata: 'SFO' }, pieces: 3 }] },
      { text: ['San Francisco ', 'International, ', 'California.'] },
    ], cassette);
    const one = await collect(recording.stream(ask(first)));
    const call = one.find((e) => e.type === 'tool-call');
    expect(call).toMatchObject({ call: { name: 'lookup_airport', input: { iata: 'SFO' } } });
    const second: ModelMessage[] = [
      ...first,
      { role: 'assistant', content: '', toolCalls: [call!.type === 'tool-call' ? call!.call : never()] },
      { role: 'tool', results: [{ callId: call!.type === 'tool-call' ? call!.call.id : '', name: 'lookup_airport', output: { city: 'San Francisco' } }] },
    ];
    const two = await collect(recording.stream(ask(second)));
    expect(two.filter((e) => e.type === 'text').length).toBe(3);
    expect(server!.requests).toHaveLength(2);
    expect(cassette.calls).toHaveLength(2);
    // The cassette survives JSON (it is stored with the run), and the replay needs no server.
    const stored = JSON.parse(JSON.stringify(cassette)) as Cassette;
    await server!.close();
    server = undefined;
    const replay = replayingProvider(stored);
    expect(await collect(replay.stream(ask(first)))).toEqual(joined(one));
    // The provider gives the tool call a new id on a re-run: ids do not count.
    const renamed = structuredClone(second);
    (renamed[2] as { toolCalls: { id: string }[] }).toolCalls[0]!.id = 'call_other';
    (renamed[3] as { results: { callId: string }[] }).results[0]!.callId = 'call_other';
    expect(await collect(replay.stream(ask(renamed)))).toEqual(joined(two));
  });

  it('answers the same request twice in recorded order, and a third time says it is not in the recording', async () => {
    const cassette = emptyCassette();
    const recording = await recorder([{ text: 'one' }, { text: 'two' }], cassette);
    await collect(recording.stream(ask(first)));
    await collect(recording.stream(ask(first)));
    const replay = replayingProvider(cassette);
    expect(await collect(replay.stream(ask(first)))).toMatchObject([{ type: 'text', text: 'one' }, { type: 'finish' }]);
    expect(await collect(replay.stream(ask(first)))).toMatchObject([{ type: 'text', text: 'two' }, { type: 'finish' }]);
    await expect(collect(replay.stream(ask(first)))).rejects.toThrow(/model call 3 of the replay is not in the recording/);
  });

  it('a changed prompt, an extra message or another model fails with where it diverges', async () => {
    const cassette = emptyCassette();
    const recording = await recorder([{ text: 'ok' }], cassette);
    await collect(recording.stream(ask(first)));
    const replay = () => replayingProvider(cassette);
    const changed = [first[0]!, { role: 'user' as const, content: 'Where is LAX?' }];
    const error = await collect(replay().stream(ask(changed))).catch((e: unknown) => e);
    expect(isPlatformError(error, 'cassette_diverged')).toBe(true);
    expect((error as Error).message).toBe(
      'model call 1 of the replay is not in the recording: message 2 (user) differs from the recording; the prompt, '
      + 'the tools or an earlier answer changed: record the run again (--record)',
    );
    const longer = [...first, { role: 'user' as const, content: 'And LAX?' }];
    await expect(collect(replay().stream(ask(longer)))).rejects.toThrow(/message 3 \(user\) was not in the recording/);
    await expect(collect(replay().stream(ask(first, 'other')))).rejects.toThrow(/the model differs from the recording/);
    await expect(collect(replayingProvider(emptyCassette()).stream(ask(first)))).rejects.toThrow(/holds no call/);
  });

  it('a call that fails is not recorded; key order and the cache setting do not change a fingerprint', async () => {
    const cassette = emptyCassette();
    const recording = await recorder([{ status: 500 }], cassette);
    await expect(collect(recording.stream(ask(first)))).rejects.toThrow();
    expect(cassette.calls).toEqual([]);
    const a = requestFingerprint({ ...ask([{ role: 'user', content: 'x' }]), promptCache: { enabled: false, ttl: '1h' } });
    const tool = { ...LOOKUP, inputSchema: { properties: { iata: { type: 'string' } }, type: 'object' } };
    const b = requestFingerprint({ ...ask([{ role: 'user', content: 'x' }]), tools: [tool] });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(requestFingerprint(ask([{ role: 'user', content: 'y' }])).fingerprint).not.toBe(a.fingerprint);
  });
});

function never(): never {
  throw new Error('expected a tool call');
}
