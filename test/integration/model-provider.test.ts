/**
 * The ModelProvider adapter on the `ai` package, through its real HTTP client, against the scripted
 * OpenAI-compatible model server on loopback: streaming, usage and cost, tool calls streamed in pieces, tool
 * results sent back, cancellation that closes the connection, provider failures, and no model configured.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import type { ModelsConfig } from '../../core/config/config-model.ts';
import { costOf } from '../../core/model/cost.ts';
import {
  reportedUsage, type ModelEvent, type ModelProvider, type ModelRequest,
} from '../../core/ports/model-provider.ts';
import { isPlatformError, type PlatformError } from '../../core/ports/platform-error.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from '../helpers/scripted-model-server.ts';

const PRICES = { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2.5 };
const CACHE = { enabled: true, ttl: '5m' as const };
const LOOKUP = { name: 'lookup_airport', description: 'Find an airport by IATA code', inputSchema: { type: 'object', properties: { iata: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } }, required: ['iata'] } };

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function providerFor(turns: ScriptedTurn[]): Promise<ModelProvider> {
  server = await startScriptedModelServer(turns);
  const models: ModelsConfig = {
    providers: [{ id: 'local', type: 'openai-compatible', apiBaseUrl: server.baseUrl, apiKey: 'sk-scripted-key' }],
    offered: [{ id: 'scripted-small', provider: 'local', model: 'small-v1', prices: PRICES }],
  };
  return createAiModelProvider({ models, maxRetries: 0 });
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(events: AsyncIterable<ModelEvent>): Promise<PlatformError> {
  try {
    await collect(events);
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'scripted-small', promptCache: CACHE, messages: [{ role: 'system', content: 'You answer about flights.' }, { role: 'user', content: text }], ...extra,
});

describe('the model provider against the scripted model server', () => {
  it('streams a text answer in deltas, then usage, priced from the configured prices', async () => {
    const provider = await providerFor([{ text: ['Forty', '-two ', 'flights.'], usage: { promptTokens: 1200, completionTokens: 40, cachedTokens: 1000 } }]);
    const events = await collect(provider.stream(ask('How many flights left SEA?')));
    expect(events.filter((e) => e.type === 'text').map((e) => e.type === 'text' && e.text)).toEqual(['Forty', '-two ', 'flights.']);
    const finish = events.at(-1);
    expect(finish).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 200, outputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 0 } });
    if (finish?.type !== 'finish') throw new Error('no finish');
    expect(costOf(finish.usage, PRICES)).toBeCloseTo((200 * 2 + 40 * 8 + 1000 * 0.5) / 1_000_000, 12);
    const sent = server!.requests[0];
    expect(sent.body.model).toBe('small-v1');
    expect(sent.body.stream).toBe(true);
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.headers.authorization).toBe('Bearer sk-scripted-key');
    expect(sent.body.messages).toEqual([{ role: 'system', content: 'You answer about flights.' }, { role: 'user', content: 'How many flights left SEA?' }]);
  });

  it('a stream with no usage ends with a finish saying so (the broker then charges an estimate)', async () => {
    const provider = await providerFor([{ text: ['Forty', '-two.'], withoutUsage: true }]);
    const events = await collect(provider.stream(ask('How many flights left SEA?')));
    expect(events.at(-1)).toEqual({
      type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, usageMissing: true,
    });
  });

  it('a tool call whose arguments arrive in several chunks comes out whole, with the tools sent as JSON Schema', async () => {
    const args = { iata: 'SEA', fields: ['name', 'city', 'state'] };
    const provider = await providerFor([{ text: 'Looking it up.', toolCalls: [{ id: 'call_sea', name: 'lookup_airport', arguments: args, pieces: 5 }] }]);
    const events = await collect(provider.stream(ask('Where is SEA?', { tools: [LOOKUP] })));
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([{ type: 'tool-call', call: { id: 'call_sea', name: 'lookup_airport', input: args } }]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
    expect(server!.requests[0].body.tools).toEqual([{ type: 'function', function: { name: 'lookup_airport', description: LOOKUP.description, parameters: LOOKUP.inputSchema } }]);
  });

  it('the tool result is sent back in the next request after the assistant message that called it', async () => {
    const provider = await providerFor([{ text: 'Seattle-Tacoma International, Seattle WA.' }]);
    const request = ask('Where is SEA?', { tools: [LOOKUP] });
    request.messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_sea', name: 'lookup_airport', input: { iata: 'SEA' } }] },
      { role: 'tool', results: [{ callId: 'call_sea', name: 'lookup_airport', output: { name: 'Seattle-Tacoma Intl', city: 'Seattle' } }] },
    );
    await collect(provider.stream(request));
    const messages = server!.requests[0].body.messages;
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_sea', type: 'function', function: { name: 'lookup_airport', arguments: '{"iata":"SEA"}' } }] },
      { role: 'tool', tool_call_id: 'call_sea', content: '{"name":"Seattle-Tacoma Intl","city":"Seattle"}' },
    ]);
  });

  it('cancellation mid-stream closes the connection and ends with model_cancelled', async () => {
    const provider = await providerFor([{ text: ['Counting: ', 'one, two'], hang: true }]);
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await failure((async function* () {
      for await (const event of provider.stream(ask('Count forever', { signal: controller.signal }))) {
        if (event.type === 'text') seen.push(event.text);
        controller.abort();
        yield event;
      }
    })());
    expect(seen).toEqual(['Counting: ']);
    expect(error.code).toBe('model_cancelled');
    await server!.clientClosed(0);
    expect(server!.requests[0].clientClosed).toBe(true);
  });

  it('a stream failing after usage was reported carries it (it is billed); the output bound is sent', async () => {
    const provider = await providerFor([
      { text: 'Half an answer', usage: { promptTokens: 300, completionTokens: 7 }, failAfterUsage: true },
    ]);
    const error = await failure(provider.stream(ask('Hi', { maxOutputTokens: 512 })));
    expect(error.code).toBe('model_unavailable');
    const billed = { inputTokens: 300, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(reportedUsage(error)).toEqual(billed);
    expect(server!.requests[0].body.max_tokens).toBe(512);
    // A failure with nothing reported carries no usage.
    await server!.close();
    expect(reportedUsage((await failure((await providerFor([{ status: 500 }])).stream(ask('Hi')))))).toBeUndefined();
  });

  it('a signal aborted before the call sends nothing', async () => {
    const provider = await providerFor([{ text: 'never' }]);
    const controller = new AbortController();
    controller.abort();
    expect((await failure(provider.stream(ask('Hi', { signal: controller.signal })))).code).toBe('model_cancelled');
    expect(server!.requests).toHaveLength(0);
  });

  it.each([
    [429, 'model_unavailable', /model "scripted-small" \(provider "local"\) is rate limited \(HTTP 429\): retry later/],
    [500, 'model_unavailable', /failed \(HTTP 500\): the provider is unavailable; retry later/],
    [401, 'model_refused', /refused the request \(HTTP 401\): check the provider's apiKey/],
    [400, 'model_refused', /refused the request \(HTTP 400\)/],
  ])('HTTP %i from the provider becomes %s with a clear message and no secret', async (status, code, message) => {
    const provider = await providerFor([{ status }]);
    const error = await failure(provider.stream(ask('Hi')));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('sk-scripted-key');
  });

  it('a provider that cannot be reached is model_unavailable', async () => {
    const models: ModelsConfig = { providers: [{ id: 'gone', type: 'openai-compatible', apiBaseUrl: 'http://127.0.0.1:1/v1' }], offered: [{ id: 'm', provider: 'gone', prices: PRICES }] };
    const error = await failure(createAiModelProvider({ models, maxRetries: 0 }).stream({ ...ask('Hi'), model: 'm' }));
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/could not be reached/);
  });

  it('no model configured gives model_not_configured naming what to set; an unknown model names those offered', async () => {
    const none = await failure(createAiModelProvider({ models: undefined }).stream(ask('Hi')));
    expect(none.code).toBe('model_not_configured');
    expect(none.message).toMatch(/CAIRN_MODEL_PROVIDER, CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY and CAIRN_MODEL/);
    expect(none.message).toMatch(/models\.providers and models\.offered/);
    const provider = await providerFor([]);
    const unknown = await failure(provider.stream({ ...ask('Hi'), model: 'gpt-9' }));
    expect(unknown.code).toBe('model_not_configured');
    expect(unknown.message).toBe('Model "gpt-9" is not offered: name one of "scripted-small", or add it to models.offered in the config.');
    expect(server!.requests).toHaveLength(0);
  });

  it('a request naming no model uses the first offered one', async () => {
    const provider = await providerFor([{ text: 'ok' }]);
    const events = await collect(provider.stream({ ...ask('Hi'), model: undefined }));
    expect(events[0]).toEqual({ type: 'text', text: 'ok' });
    expect(server!.requests[0].body.model).toBe('small-v1');
  });

  it('a request naming no model uses models.default', async () => {
    server = await startScriptedModelServer([{ text: 'ok' }]);
    const local = { id: 'local', type: 'openai-compatible' as const, apiBaseUrl: server.baseUrl };
    const models: ModelsConfig = { providers: [local], offered: [{ id: 'a', provider: 'local', model: 'model-a', prices: PRICES }, { id: 'b', provider: 'local', model: 'model-b', prices: PRICES }], default: 'b' };
    await collect(createAiModelProvider({ models, maxRetries: 0 }).stream({ ...ask('Hi'), model: undefined }));
    expect(server.requests[0].body.model).toBe('model-b');
  });

  it.each([
    [true, '1h' as const, { type: 'ephemeral', ttl: '1h' }],
    [false, '5m' as const, undefined],
  ])('anthropic: with prompt caching %s the system prompt and the last message carry cache_control', async (enabled, ttl, expected) => {
    server = await startScriptedModelServer([]);
    const models: ModelsConfig = { providers: [{ id: 'claude', type: 'anthropic', apiBaseUrl: server.baseUrl, apiKey: 'sk-ant-scripted' }], offered: [{ id: 'sonnet', provider: 'claude', model: 'claude-x', prices: PRICES }] };
    const request = { ...ask('Where is SEA?', { tools: [LOOKUP] }), model: 'sonnet', promptCache: { enabled, ttl } };
    expect((await failure(createAiModelProvider({ models, maxRetries: 0 }).stream(request))).code).toBe('model_refused');
    const sent = server.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-scripted');
    expect(sent.body.system).toEqual([{ type: 'text', text: 'You answer about flights.', ...(expected === undefined ? {} : { cache_control: expected }) }]);
    expect(sent.body.messages.at(-1).content.at(-1).cache_control).toEqual(expected);
  });

  it('bedrock: with prompt caching on the system prompt and the last message end with a cache point', async () => {
    server = await startScriptedModelServer([]);
    const models: ModelsConfig = { providers: [{ id: 'aws', type: 'bedrock', region: 'eu-west-1', apiBaseUrl: server.baseUrl, apiKey: 'bedrock-api-key' }], offered: [{ id: 'nova', provider: 'aws', model: 'amazon.nova-pro-v1:0', prices: PRICES }] };
    expect((await failure(createAiModelProvider({ models, maxRetries: 0 }).stream({ ...ask('Where is SEA?'), model: 'nova' }))).code).toBe('model_refused');
    const sent = server.requests[0];
    expect(sent.path).toBe('/v1/model/amazon.nova-pro-v1%3A0/converse-stream');
    expect(sent.headers.authorization).toBe('Bearer bedrock-api-key');
    expect(sent.body.system.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    expect(sent.body.messages.at(-1).content.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  });
});

describe('the scripted model server', () => {
  it('answers a non-streaming request with one completion holding text, tool calls and usage', async () => {
    server = await startScriptedModelServer([{ text: 'Checking.', toolCalls: [{ name: 'lookup_airport', arguments: { iata: 'SEA' } }], usage: { promptTokens: 7, completionTokens: 3 } }]);
    const response = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'SEA?' }] }) });
    const body = await response.json();
    expect(body.choices[0]).toEqual({ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'lookup_airport', arguments: '{"iata":"SEA"}' } }] } });
    expect(body.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect((await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(500);
  });
});
