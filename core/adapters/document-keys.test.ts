import { BSON } from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  escapeKey,
  escapeKeysDeep,
  KEY_MARKER,
  keyNeedsEscape,
  unescapeKey,
  unescapeKeysDeep,
} from './document-keys.ts';

const hostileKeys = [
  '$date',
  '$where',
  '$set',
  '$oid',
  '$ref',
  '$id',
  'a.b',
  '.',
  '..',
  'a..b.',
  '',
  '__proto__',
  '%2E',
  '%25.%',
  `${KEY_MARKER}`,
  `${KEY_MARKER}date`,
  `${KEY_MARKER}%2E`,
  '$',
  '$.$',
];

describe('document key escape', () => {
  it("leaves the platform's own field names and ordinary keys as they are", () => {
    for (const key of ['_id', 'status', 'updatedAt', 'trigger', 'a$b', 'x-y', 'ÿ', '%2E', 'dollar$']) {
      expect(keyNeedsEscape(key), key).toBe(false);
      expect(escapeKey(key)).toBe(key);
      expect(unescapeKey(key)).toBe(key);
    }
  });

  it('escapes every key MongoDB or the codec could misread, unambiguously, and reverses it exactly', () => {
    const stored = hostileKeys.map(escapeKey);
    expect(new Set(stored).size).toBe(hostileKeys.length);
    for (const [i, key] of hostileKeys.entries()) {
      expect(unescapeKey(stored[i]), key).toBe(key);
      if (keyNeedsEscape(key)) {
        expect(stored[i].startsWith(KEY_MARKER)).toBe(true);
        expect(stored[i]).not.toContain('.');
        expect(stored[i].startsWith('$')).toBe(false);
      }
    }
  });

  it('round-trips nested values through arrays, keeping Dates and __proto__ as an own key without polluting', () => {
    const when = new Date('2026-01-01T00:00:00.000Z');
    const value = JSON.parse(
      '{"__proto__":{"x":1},"list":[{"$gt":1},{"a.b":[{"":2}]}],"$date":"tomorrow"}',
    ) as Record<string, unknown>;
    value.when = when;
    const escaped = escapeKeysDeep(value) as Record<string, unknown>;
    expect(Object.keys(escaped).some((k) => k.startsWith('$') || k.includes('.') || k === '__proto__')).toBe(false);
    expect(escaped.when).toBe(when);
    const back = unescapeKeysDeep(escaped) as Record<string, unknown>;
    expect(back).toEqual(value);
    expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toEqual({ x: 1 });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('gives MongoDB documents whose field names pass its strictest key check, and reads them back exactly', () => {
    const value = { _id: 'd1', trigger: Object.fromEntries(hostileKeys.map((k, i) => [k, { [k]: i }])) };
    expect(() => BSON.serialize(value, { checkKeys: true })).toThrow();
    const bytes = BSON.serialize(escapeKeysDeep(value) as Record<string, unknown>, { checkKeys: true });
    expect(unescapeKeysDeep(BSON.deserialize(bytes))).toEqual(value);
  });
});
