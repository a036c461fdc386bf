/**
 * Query validation of execute_query: the engine's own parser (json_serialize_sql) turns the SQL
 * into a tree and only allowlisted shapes pass. This is the only SQL-safety layer on the path; it
 * has no fallback and no switch.
 *
 * Source: ../shared/spec/semantic-query-service.md § Query validation.
 */
import type { ParseOutcome } from '../../ports/query-engine.ts';
import { queryNodeTypes } from './allowlists.ts';
import { parseError, rejected, statementKindRejected, unsupportedConstruct } from './messages.ts';
import { firstKeyword, leadingTokens } from './sql-tokens.ts';
import { walkStatement } from './tree-walker.ts';

/**
 * Input of {@link validateQuery}.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface ValidateQueryInput {
  /** The agent's SQL, with bare dataset names and $1, $2 … placeholders. */
  sql: string;
  /** The engine's parser (QueryEngine.parse). */
  parse: (sql: string) => Promise<ParseOutcome>;
  /** Dataset names of the requested model; the only tables a query may name (case-insensitive). */
  datasetNames: string[];
}

/**
 * A query that passed validation.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface ValidatedQuery {
  /** The SQL to run: the original text, unchanged (including a leading EXPLAIN). */
  sql: string;
  /** True when the query is `EXPLAIN <statement>`. */
  explain: boolean;
  /** Highest placeholder index used ($3 → 3; 0 without placeholders): params must hold at least this many. */
  parameterCount: number;
}

/** Prefix of the parser's message for statements json_serialize_sql will not serialise. */
const notSerialisable = 'Only SELECT statements can be serialized';

/**
 * Validates one agent query against the allowlist: exactly one SELECT / set operation / WITH
 * (recursive allowed) statement, optionally under EXPLAIN (never EXPLAIN ANALYZE) or DESCRIBE of
 * a table; bare names of the model's datasets or CTEs only; no system catalogs, `_scope_` or
 * engine prefixes; allowlisted table functions; no file, catalog or SQL re-entry functions.
 * @param input - `sql`, the engine's `parse`, the model's `datasetNames`
 * @returns the SQL to run (unchanged), whether it is an EXPLAIN, and the highest placeholder index
 * @throws PlatformError `query_rejected` (message `Query rejected: …` saying what to change);
 *   `query_parse_error` (message `Could not parse query: ` + the parser's text verbatim, or a note
 *   that the query is empty)
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export async function validateQuery(input: ValidateQueryInput): Promise<ValidatedQuery> {
  const { explain, body } = splitExplain(input.sql);
  const statements = await parseOne(body, input, explain);
  const statement = statements[0] as { node?: { type?: unknown } } | null;
  if (!statement || typeof statement !== 'object' || !queryNodeTypes.has(String(statement.node?.type))) {
    throw unsupportedConstruct(`top-level ${String(statement?.node?.type ?? 'statement')}`);
  }
  const lowerNames = new Set(input.datasetNames.map((name) => name.toLowerCase()));
  const { maxParameter } = walkStatement(statement, { lowerNames, names: input.datasetNames });
  return { sql: input.sql, explain, parameterCount: maxParameter };
}

/**
 * Splits a leading EXPLAIN keyword off `sql` (json_serialize_sql only serialises SELECT). Refuses
 * EXPLAIN ANALYZE in any case and with comments between the words, because it runs the statement.
 * @returns `explain` and the `body` after the keyword (or the whole SQL)
 * @throws PlatformError `query_rejected` for EXPLAIN ANALYZE
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function splitExplain(sql: string): { explain: boolean; body: string } {
  const [first, second] = leadingTokens(sql, 2);
  if (!first?.word || first.text.toUpperCase() !== 'EXPLAIN') return { explain: false, body: sql };
  if (second?.word && ['ANALYZE', 'ANALYSE'].includes(second.text.toUpperCase())) {
    throw rejected('EXPLAIN ANALYZE is not allowed because it runs the statement; use EXPLAIN alone to see the plan.');
  }
  return { explain: true, body: sql.slice(first.end) };
}

/** Parses `body` and returns its statement list, which must hold exactly one statement. */
async function parseOne(body: string, input: ValidateQueryInput, explain: boolean): Promise<unknown[]> {
  const outcome = await input.parse(body);
  if (!outcome.ok) {
    if (outcome.message.startsWith(notSerialisable)) throw statementKindRejected(firstKeyword(body));
    throw parseError(explain ? await wholeQueryMessage(input, outcome.message) : outcome.message);
  }
  if (outcome.statements.length === 0) {
    throw parseError(explain ? 'EXPLAIN must be followed by a SELECT statement.' : 'the query is empty (it holds no SQL statement); send one SELECT statement.');
  }
  if (outcome.statements.length > 1) {
    throw rejected(`exactly one statement is allowed, but the query holds ${outcome.statements.length}; send a single SELECT without other ";"-separated statements.`);
  }
  return outcome.statements;
}

/** For EXPLAIN, the parser's message about the whole query (positions match what the agent wrote). */
async function wholeQueryMessage(input: ValidateQueryInput, bodyMessage: string): Promise<string> {
  const whole = await input.parse(input.sql);
  return !whole.ok && !whole.message.startsWith(notSerialisable) ? whole.message : bodyMessage;
}
