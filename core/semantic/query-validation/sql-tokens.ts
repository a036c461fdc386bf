/**
 * A small reader of the leading words of a SQL text, used only to word a rejection message (for
 * example to say "EXPLAIN is not available" rather than a generic refusal). It never decides what
 * runs: the engine's parser does that over the whole text.
 *
 * Source: spec/semantic-query-service.md § Query validation (2, 3).
 */

const wordStart = /[A-Za-z_\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;
/** DuckDB 1.5's lexer: whitespace is space, \t, \n, \r and \f (\v is a syntax error); a `--` comment ends at \n or \r.
 */
const space = /[ \t\n\r\f]/;
const newline = /[\n\r]/;

/**
 * The first `count` tokens of `sql` in upper case, skipping whitespace, `--` line comments (ended by
 * \n or \r, as in DuckDB) and nested `/* *\/` block comments. A bare word comes back as itself in
 * upper case; any other token (a quote, a parenthesis) as ''.
 * @param sql - the SQL text
 * @param count - how many tokens to read (default 2)
 * @returns up to `count` entries, fewer when the input ends first
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function leadingWords(sql: string, count = 2): string[] {
  const words: string[] = [];
  let index = 0;
  while (words.length < count) {
    index = skipTrivia(sql, index);
    if (index >= sql.length) break;
    if (!wordStart.test(sql[index])) {
      words.push('');
      index += 1;
      continue;
    }
    let end = index + 1;
    while (end < sql.length && wordPart.test(sql[end])) end += 1;
    words.push(sql.slice(index, end).toUpperCase());
    index = end;
  }
  return words;
}

/** Offset of the first character at or after `from` that is not whitespace or inside a comment. */
function skipTrivia(sql: string, from: number): number {
  let index = from;
  for (;;) {
    while (index < sql.length && space.test(sql[index])) index += 1;
    if (sql.startsWith('--', index)) {
      index += 2;
      while (index < sql.length && !newline.test(sql[index])) index += 1;
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
