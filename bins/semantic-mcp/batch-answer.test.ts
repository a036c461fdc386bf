/**
 * The answer cap of one POST (batchAnswer) and what a request counts against the rate limits (callCount).
 * Source: docs/decisions.md D18 § 3.
 */
import { describe, expect, it } from 'vitest';
import { callCount } from './app.ts';
import { answerCapMessage, batchAnswer } from './batch-answer.ts';
import type { JsonRpcCall, JsonRpcResponse } from './json-rpc.ts';

const toolCall = (id: number): JsonRpcCall => ({ id, method: 'tools/call', params: { name: 'execute_query' } });
const rows = (id: number, characters: number): JsonRpcResponse => ({
  jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(characters) }] },
});
const bytesOf = async (response: Response) => (await response.arrayBuffer()).byteLength;

describe('batchAnswer', () => {
  it('keeps the whole answer within the cap, with the cap error for the call past it and every later one', async () => {
    const calls = [toolCall(1), { id: 2, method: 'tools/list' }, { method: 'notifications/initialized' }, toolCall(3)];
    const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const capError = { isError: true, content: [{ type: 'text', text: answerCapMessage }] };
    const laterError = size({ jsonrpc: '2.0', id: 3, result: capError });
    // The first two results fit the cap, but not with the room kept for the error of call 3.
    const limit = size(rows(1, 1000)) + size(rows(2, 1000)) + laterError;
    const answer = batchAnswer(calls, limit);
    answer.add(calls[0], rows(1, 1000));
    expect(answer.full).toBe(false);
    answer.add(calls[1], rows(2, 1000));
    expect(answer.full).toBe(true);
    answer.skip(calls[2]);
    answer.skip(calls[3]);
    expect(answer.answered).toBe(1);
    const response = answer.respond(true);
    const text = await response.clone().text();
    expect(await bytesOf(response)).toBeLessThanOrEqual(limit);
    const answers = JSON.parse(text) as JsonRpcResponse[];
    expect(answers).toEqual([
      rows(1, 1000),
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: answerCapMessage } },
      { jsonrpc: '2.0', id: 3, result: capError },
    ]);
  });

  it('answers one call as an object, and 202 without a body when nothing is answered', async () => {
    const one = batchAnswer([toolCall(1)]);
    one.add(toolCall(1), rows(1, 10));
    expect(await one.respond(false).json()).toEqual(rows(1, 10));
    const none = batchAnswer([{ method: 'notifications/initialized' }]);
    expect(none.respond(false).status).toBe(202);
  });
});

describe('callCount', () => {
  it('counts the tools/call messages that expect an answer, and at least 1', () => {
    expect(callCount([toolCall(1), toolCall(2), { method: 'tools/call' }, { id: 3, method: 'tools/list' }])).toBe(2);
    expect(callCount([{ id: 1, method: 'initialize' }])).toBe(1);
    expect(callCount(Array.from({ length: 100 }, (_, i) => toolCall(i)))).toBe(100);
  });
});
