/**
 * A small SQL tokenizer for the few decisions the parser's JSON cannot make: the leading EXPLAIN
 * keyword (json_serialize_sql refuses EXPLAIN statements) and the first keyword of a statement
 * the parser will not serialise.
 *
 * Source: ../shared/spec/semantic-query-service.md § Query validation (2, 3).
 */

/**
 * One leading token: a bare word (keyword or identifier) or any other single character.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface SqlToken {
  /** The token's text as written (a word, or one punctuation character). */
  text: string;
  /** Offset of the token's first character in the SQL. */
  start: number;
  /** Offset just after the token. */
  end: number;
  /** True for bare words: letters, digits, `_` and `$`, not starting with a digit or `$`. */
  word: boolean;
}

const wordStart = /[A-Za-z_\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * The first `count` tokens of `sql`, skipping whitespace, `--` line comments and `/* *\/` block
 * comments (nested, as in DuckDB's PostgreSQL-derived lexer). An unterminated block comment ends
 * the input. Quoted identifiers and strings come back as their first character only (callers
 * only compare words).
 * @param sql - the SQL text
 * @param count - how many tokens to read (default 2)
 * @returns up to `count` tokens, fewer when the input ends first
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function leadingTokens(sql: string, count = 2): SqlToken[] {
  const tokens: SqlToken[] = [];
  let index = 0;
  while (tokens.length < count) {
    index = skipTrivia(sql, index);
    if (index >= sql.length) break;
    const token = readToken(sql, index);
    tokens.push(token);
    index = token.end;
  }
  return tokens;
}

/**
 * The first keyword of `sql` in upper case (e.g. `SET`, `PRAGMA`), or '' when the SQL does not
 * start with a bare word.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function firstKeyword(sql: string): string {
  const [token] = leadingTokens(sql, 1);
  return token?.word ? token.text.toUpperCase() : '';
}

/** Offset of the first character at or after `from` that is not whitespace or inside a comment. */
function skipTrivia(sql: string, from: number): number {
  let index = from;
  for (;;) {
    while (index < sql.length && /\s/.test(sql[index])) index += 1;
    if (sql.startsWith('--', index)) {
      const newline = sql.indexOf('\n', index);
      index = newline === -1 ? sql.length : newline + 1;
    } else if (sql.startsWith('/*', index)) {
      index = skipBlockComment(sql, index);
    } else {
      return index;
    }
  }
}

/** Offset just after the (possibly nested) block comment that opens at `from`. */
function skipBlockComment(sql: string, from: number): number {
  let depth = 0;
  let index = from;
  while (index < sql.length) {
    if (sql.startsWith('/*', index)) {
      depth += 1;
      index += 2;
    } else if (sql.startsWith('*/', index)) {
      depth -= 1;
      index += 2;
      if (depth === 0) return index;
    } else {
      index += 1;
    }
  }
  return sql.length;
}

function readToken(sql: string, start: number): SqlToken {
  if (!wordStart.test(sql[start])) return { text: sql[start], start, end: start + 1, word: false };
  let end = start + 1;
  while (end < sql.length && wordPart.test(sql[end])) end += 1;
  return { text: sql.slice(start, end), start, end, word: true };
}
