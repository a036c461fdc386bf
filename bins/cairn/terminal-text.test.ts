/**
 * What the cairn command prints of others' text cannot drive the terminal or reorder what is read.
 */
import { describe, expect, it } from 'vitest';
import { table } from './semantic-commands.ts';
import { terminalSafe, terminalSafeJson } from './terminal-text.ts';

const hostile = 'ok\u001b]0;pwned\u0007\u0000tail\u202egnp.exe\r\u009b31m\u200b';

describe('terminal-safe text', () => {
  it('escapes ESC, BEL, NUL, CR, C1 and bidirectional or invisible characters, keeping layout', () => {
    expect(terminalSafe(hostile)).toBe('ok\\u001B]0;pwned\\u0007\\u0000tail\\u202Egnp.exe\\u000D\\u009B31m\\u200B');
    expect(terminalSafe('line one\n\tline two')).toBe('line one\n\tline two');
    expect(terminalSafe('a\nb', { newlines: false })).toBe('a\\u000Ab');
    expect(terminalSafe(terminalSafe(hostile))).toBe(terminalSafe(hostile));
  });

  it('leaves no control or bidirectional character in JSON output, and the JSON value is unchanged', () => {
    const json = terminalSafeJson(JSON.stringify({ title: hostile }));
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json)).toEqual({ title: hostile });
  });

  it('puts every table cell on one line', () => {
    const out = table(['TITLE', 'N'], [['two\nlines\u202e', '1']]);
    expect(out.split('\n')).toHaveLength(2);
    expect(out).toContain('two\\u000Alines\\u202E');
  });
});
