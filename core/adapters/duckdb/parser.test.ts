/**
 * The parser reuses one connection and one prepared statement: concurrent parses must each get
 * their own text's tree, and a parse error must not disturb the next parse. Remembered parses serve
 * only their own partition (project).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbParser } from './parser.ts';

const parser = createDuckDbParser();
afterAll(() => parser.close());

/** The constant of `SELECT <n>` as json_serialize_sql writes it. */
const constantOf = (statements: unknown[]) =>
  (statements[0] as { node: { select_list: { value: { value: number } }[] } }).node.select_list[0].value.value;

describe('DuckDB parser', () => {
  it('answers 40 concurrent parses each with its own statement, errors included', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, n) => parser.parse(n % 7 === 3 ? `SELEC ${n}` : `SELECT ${n}`)),
    );
    outcomes.forEach((outcome, n) => {
      if (n % 7 === 3) expect(outcome).toEqual({ ok: false, message: `syntax error at or near "SELEC"` });
      else expect(outcome.ok && constantOf(outcome.statements)).toBe(n);
    });
  });

  it('answers a repeated text with an equal tree that no earlier caller can have changed', async () => {
    const first = await parser.parse('SELECT 41');
    expect(first.ok).toBe(true);
    if (first.ok) {
      (first.statements[0] as { node: { select_list: { value: { value: number } }[] } }).node.select_list[0].value
        .value = 999;
    }
    const second = await parser.parse('SELECT 41');
    expect(second.ok && constantOf(second.statements)).toBe(41);
  });

  it("remembers a parse per partition: another project's repeat goes to the engine (D18 § 6)", async () => {
    const own = createDuckDbParser();
    try {
      const sql = 'SELECT 4242 AS answer';
      await own.parse(sql, 'project-a');
      await own.parse(sql, 'project-a');
      expect(own.engineParses()).toBe(1);
      const other = await own.parse(sql, 'project-b');
      expect(other.ok && constantOf(other.statements)).toBe(4242);
      expect(own.engineParses()).toBe(2);
      await own.parse(sql, 'project-b');
      await own.parse(sql);
      expect(own.engineParses()).toBe(3);
    } finally {
      own.close();
    }
  });

  it('opens again after close', async () => {
    parser.close();
    const outcome = await parser.parse('SELECT 7');
    expect(outcome.ok && constantOf(outcome.statements)).toBe(7);
  });
});
