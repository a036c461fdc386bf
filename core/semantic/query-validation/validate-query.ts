/**
 * Query validation of execute_query: the engine's own parser (json_serialize_sql) turns the WHOLE
 * SQL text into a tree and only allowlisted shapes pass. The text that passed is the text that
 * runs, unchanged: nothing is stripped, split or re-tokenised before execution. This is the only
 * SQL-safety layer on the path; it has no fallback and no switch.
 *
 * EXPLAIN is refused: a plan shows the base tables, hidden columns and predicates that a dataset's
 * view hides (see the issue "Close the query-path holes"), so no plan is given at all.
 *
 * Source: spec/semantic-query-service.md § Query validation.
 */
import type { ParseOutcome } from '../../ports/query-engine.ts';
import { queryNodeTypes } from './allowlists.ts';
import { explainRefused, parseError, rejected, statementKindRejected, unsupportedConstruct } from './messages.ts';
import { leadingWords } from './sql-tokens.ts';
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
  /** The SQL to run: exactly the text the parser serialised and the walk accepted. */
  sql: string;
  /** Highest placeholder index used ($3 → 3; 0 without placeholders): params must hold at least this many. */
  parameterCount: number;
}

/** Why SQL holding a NUL character is refused (docs/decisions.md D18 § 6). */
const nulMessage = 'the SQL contains a NUL character (U+0000); the engine would ignore everything after it. ' +
  'Remove the NUL character and send the statement alone.';

/** Prefix of the parser's message for statements json_serialize_sql will not serialise. */
const notSerialisable = 'Only SELECT statements can be serialized';

/**
 * Validates one agent query against the allowlist: exactly one SELECT / set operation / WITH
 * (recursive allowed) / DESCRIBE statement, as the engine parses the whole text; bare
 * names of the model's datasets or CTEs only; no system catalogs, `_scope_` or engine prefixes;
 * allowlisted table functions; no file, catalog, statistics or SQL re-entry functions.
 * @param input - `sql`, the engine's `parse`, the model's `datasetNames`
 * @returns the SQL to run (the input, unchanged) and the highest placeholder index
 * @throws PlatformError `query_rejected` (message `Query rejected: …` saying what to change: any
 *   statement the engine will not serialise as a SELECT, SQL holding a NUL character, every spelling of EXPLAIN and
 *   EXPLAIN ANALYZE, SET, PRAGMA, DDL and DML); `query_parse_error` (message
 *   `Could not parse query: ` + the parser's text verbatim, or a note that the query is empty)
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export async function validateQuery(input: ValidateQueryInput): Promise<ValidatedQuery> {
  // The engine reads SQL up to the first NUL and ignores the rest, which the call log would show as run.
  if (input.sql.includes('\u0000')) throw rejected(nulMessage);
  const statements = await parseOne(input);
  const statement = statements[0] as { node?: { type?: unknown } } | null;
  if (!statement || typeof statement !== 'object' || !queryNodeTypes.has(String(statement.node?.type))) {
    throw unsupportedConstruct(`top-level ${String(statement?.node?.type ?? 'statement')}`);
  }
  const lowerNames = new Set(input.datasetNames.map((name) => name.toLowerCase()));
  const { maxParameter } = walkStatement(statement, { lowerNames, names: input.datasetNames });
  return { sql: input.sql, parameterCount: maxParameter };
}

/** Parses the whole text and returns its statement list, which must hold exactly one statement. */
async function parseOne(input: ValidateQueryInput): Promise<unknown[]> {
  const outcome = await input.parse(input.sql);
  if (!outcome.ok) {
    if (outcome.message.startsWith(notSerialisable)) throw notASelect(input.sql);
    throw parseError(outcome.message);
  }
  if (outcome.statements.length === 0) {
    throw parseError('the query is empty (it holds no SQL statement); send one SELECT statement.');
  }
  if (outcome.statements.length > 1) {
    throw rejected(
      `exactly one statement is allowed, but the query holds ${outcome.statements.length}; send a single SELECT ` +
        `without other ";"-separated statements.`,
    );
  }
  return outcome.statements;
}

/**
 * The rejection for text the engine parsed but will not serialise as SELECT statements. The leading
 * words only choose the wording of the message; the decision was the engine's.
 */
function notASelect(sql: string): Error {
  const [first, second] = leadingWords(sql, 2);
  if (first === 'EXPLAIN') return explainRefused(second === 'ANALYZE' || second === 'ANALYSE');
  return statementKindRejected(first);
}
