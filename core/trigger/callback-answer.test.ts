import { describe, expect, it } from 'vitest';
import { callbackAnswer } from './callback-answer.ts';

describe("a collection's callback answer", () => {
  it('reads response and firings from structured content or JSON text, with defaults', () => {
    expect(callbackAnswer({ response: { status: 200, body: 'challenge-1' } })).toEqual({
      response: { status: 200, body: 'challenge-1', contentType: 'text/plain; charset=utf-8' },
      firings: [],
    });
    expect(callbackAnswer('{"response":{"body":{"ok":true}},"firings":[{"id":"f1","payload":{"n":1}},{"payload":2}]}'))
      .toEqual({
        response: { status: 200, body: '{"ok":true}', contentType: 'application/json' },
        firings: [{ id: 'f1', payload: { n: 1 } }, { payload: 2 }],
      });
    expect(callbackAnswer('')).toEqual({ firings: [] });
    expect(callbackAnswer({ firings: [{}] })).toEqual({ firings: [{ payload: null }] });
  });

  it('refuses what does not fit, naming the field', () => {
    expect(() => callbackAnswer('nope')).toThrow(/not JSON/);
    expect(() => callbackAnswer([1])).toThrow(/not an object/);
    expect(() => callbackAnswer({ response: { status: 99 } })).toThrow(/response.status/);
    expect(() => callbackAnswer({ firings: {} })).toThrow(/firings is not a list/);
    expect(() => callbackAnswer({ firings: [{ id: 7 }] })).toThrow(/firings\[0\].id/);
  });
});
