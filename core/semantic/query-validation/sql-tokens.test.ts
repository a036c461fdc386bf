/**
 * The leading-word reader that words rejection messages (pure; no parser needed). It follows
 * DuckDB's lexer: a `--` comment ends at \n or \r, and \f is whitespace.
 */
import { describe, expect, it } from 'vitest';
import { leadingWords } from './sql-tokens.ts';

describe('leadingWords', () => {
  it.each([
    ['EXPLAIN ANALYZE SELECT 1', ['EXPLAIN', 'ANALYZE']],
    ['  explain\n\tanalyze', ['EXPLAIN', 'ANALYZE']],
    ['EXPLAIN/**/ANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['-- a\n-- b\nEXPLAIN -- c\nANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['/* a /* nested */ still comment */ EXPLAIN /* x */ ANALYZE', ['EXPLAIN', 'ANALYZE']],
    ['--\rSELECT * FROM x /*\nEXPLAIN SELECT 1 -- */', ['SELECT', '']],
    ['-- c\r\nPRAGMA version', ['PRAGMA', 'VERSION']],
    ['EXPLAIN\fANALYZE\vSELECT', ['EXPLAIN', 'ANALYZE']],
    ['--\u2028EXPLAIN\nSET x', ['SET', 'X']],
    ['(SELECT 1)', ['', 'SELECT']],
    ['"EXPLAIN" x', ['', 'EXPLAIN']],
    ['/* unterminated EXPLAIN ANALYZE', []],
    ['-- only a comment', []],
    ['', []],
  ])('%j → %j', (sql, expected) => {
    expect(leadingWords(sql, 2)).toEqual(expected);
  });
});
