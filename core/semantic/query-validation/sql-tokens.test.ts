/**
 * The leading-token tokenizer and EXPLAIN splitting (pure; no parser needed).
 */
import { describe, expect, it } from 'vitest';
import { firstKeyword, leadingTokens } from './sql-tokens.ts';
import { splitExplain } from './validate-query.ts';

describe('leadingTokens', () => {
  it.each([
    ['EXPLAIN ANALYZE SELECT 1', ['EXPLAIN', 'ANALYZE']],
    ['  explain\n\tanalyze', ['explain', 'analyze']],
    ['EXPLAIN/**/ANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['-- a\n-- b\nEXPLAIN -- c\nANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['/* a /* nested */ still comment */ EXPLAIN /* x */ ANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['(SELECT 1)', ['(', 'SELECT']],
    ['"EXPLAIN" x', ['"', 'EXPLAIN']],
    ['/* unterminated EXPLAIN ANALYZE', []],
    ['-- only a comment', []],
    ['', []],
  ])('%j → %j', (sql, expected) => {
    expect(leadingTokens(sql, 2).map((token) => token.text)).toEqual(expected);
  });

  it('gives the first keyword in upper case, or nothing for punctuation', () => {
    expect(firstKeyword(' /* c */ pragma version')).toBe('PRAGMA');
    expect(firstKeyword('(SELECT 1)')).toBe('');
    expect(firstKeyword('')).toBe('');
  });
});

describe('splitExplain', () => {
  it('strips a leading EXPLAIN and keeps the rest verbatim', () => {
    expect(splitExplain('/* c */ EXPLAIN  SELECT 1')).toEqual({ explain: true, body: '  SELECT 1' });
    expect(splitExplain('SELECT 1')).toEqual({ explain: false, body: 'SELECT 1' });
    expect(splitExplain('EXPLAINX SELECT 1')).toEqual({ explain: false, body: 'EXPLAINX SELECT 1' });
  });

  it.each(['EXPLAIN ANALYZE SELECT 1', 'explain analyse select 1', 'EXPLAIN /* x */ ANALYZE SELECT 1', 'EXPLAIN--x\nAnalyze SELECT 1'])(
    'refuses %j',
    (sql) => {
      expect(() => splitExplain(sql)).toThrow(/^Query rejected: EXPLAIN ANALYZE is not allowed/);
    },
  );
});
