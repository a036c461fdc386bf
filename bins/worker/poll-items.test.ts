import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { canonicalJson } from '../../core/trigger/canonical-json.ts';
import { itemIdOf, pollItems, polledItems } from './poll-items.ts';
import { runPollTask } from './service-tasks.ts';

describe('poll items', () => {
  it('reads structured content {items}, a structured array, JSON text of an array or of {items}', () => {
    expect(pollItems({ items: [{ id: 'a' }] })).toEqual([{ id: 'a' }]);
    expect(pollItems([{ id: 'b' }])).toEqual([{ id: 'b' }]);
    expect(pollItems('[{"id":"c"}]')).toEqual([{ id: 'c' }]);
    expect(pollItems('{"items":[{"id":"d"}],"next":null}')).toEqual([{ id: 'd' }]);
    expect(pollItems('{"items":[]}')).toEqual([]);
  });

  it('refuses an answer without a list, saying what it found and what to answer', () => {
    for (const output of ['not json', '{"rows":[]}', '', { rows: [] }, 42]) {
      let caught: unknown;
      try { pollItems(output); } catch (error) { caught = error; }
      expect(isPlatformError(caught, 'poll_result_unreadable')).toBe(true);
      expect((caught as Error).message).toMatch(/Answer \{"items": \[\.\.\.\]\}/);
    }
  });

  it('takes an item\'s own id (text or number), else the SHA-256 of its canonical JSON (key order does not matter)', () => {
    expect(itemIdOf({ id: 'issue-7', title: 'x' })).toBe('issue-7');
    expect(itemIdOf({ id: 42 })).toBe('42');
    const digest = `sha256-${createHash('sha256').update('{"a":1,"b":{"c":[2,3],"d":true}}').digest('hex')}`;
    expect(itemIdOf({ b: { d: true, c: [2, 3] }, a: 1 })).toBe(digest);
    expect(itemIdOf({ a: 1, b: { c: [2, 3], d: true } })).toBe(digest);
    expect(itemIdOf('plain text')).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(itemIdOf({ id: '' })).toMatch(/^sha256-/);
    expect(itemIdOf({ id: 'x'.repeat(201) })).toMatch(/^sha256-/);
    expect(canonicalJson({ z: undefined, y: [undefined, null] })).toBe('{"y":[null,null]}');
  });

  it('keeps an item repeated in one answer once', () => {
    expect(polledItems({ items: [{ id: 'a', v: 1 }, { id: 'a', v: 2 }, { v: 3 }] })).toEqual([{ id: 'a', item: { id: 'a', v: 1 } }, { id: itemIdOf({ v: 3 }), item: { v: 3 } }]);
  });
});

describe('the poll task', () => {
  it('asks the broker for its one call and answers the items; a failed tool fails it with the service\'s text', async () => {
    const asked: unknown[] = [];
    const broker = (output: unknown, isError = false) => ({ request: async (op: string, args: unknown) => { asked.push([op, args]); return { output, isError }; } });
    const payload = { collection: 'tickets', tool: 'list_tickets', input: { state: 'open' } };
    expect(await runPollTask(payload, broker({ items: [{ id: 't1' }] }))).toEqual({ items: [{ id: 't1', item: { id: 't1' } }] });
    expect(asked).toEqual([['service.call', payload]]);
    await expect(runPollTask(payload, broker('The tickets service could not be reached: refused. Try again later.', true))).rejects.toMatchObject({ code: 'poll_failed', message: expect.stringMatching(/could not be reached/) });
    await expect(runPollTask({ collection: 'tickets' }, broker([]))).rejects.toMatchObject({ code: 'invalid_payload' });
  });
});
