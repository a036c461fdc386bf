/**
 * Rejection and parse-error messages of query validation. Every rejection starts with
 * `Query rejected: `, says what was wrong and what to do, and names only the requested model's
 * tables; parse errors carry the parser's text verbatim after `Could not parse query: `.
 *
 * Source: spec/semantic-query-service.md § Query validation, § Errors.
 */
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * Code of a query outside the allowlist.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const queryRejectedCode = 'query_rejected';
/**
 * Code of SQL the engine's parser refused (or empty input).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export const queryParseErrorCode = 'query_parse_error';

/**
 * A `query_rejected` error (HTTP 400) whose message is `Query rejected: ` + `reason`.
 * @param reason - what was wrong and what to do, without the prefix
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function rejected(reason: string): PlatformError {
  return new PlatformError(queryRejectedCode, `Query rejected: ${reason}`, { status: 400 });
}

/**
 * A `query_parse_error` error (HTTP 400) whose message is `Could not parse query: ` + `parserText`.
 * @param parserText - the parser's message, verbatim
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function parseError(parserText: string): PlatformError {
  return new PlatformError(queryParseErrorCode, `Could not parse query: ${parserText}`, { status: 400 });
}

/**
 * ` tables of this model are: a, b` (or a note that the model has none).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function tablesOfModel(datasetNames: readonly string[]): string {
  return datasetNames.length === 0
    ? 'this model has no tables'
    : `tables of this model are: ${datasetNames.join(', ')}`;
}

/**
 * Rejection of a base-table name that is neither a dataset of the model nor a CTE in scope.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function unknownTable(name: string, datasetNames: readonly string[]): PlatformError {
  return rejected(`unknown table "${name}"; ${tablesOfModel(datasetNames)}`);
}

/**
 * Rejection of text that is not one SELECT statement (SET, PRAGMA, DDL, DML, or a SELECT followed
 * by another statement). `keyword` is the text's first word in upper case ('' when none).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function statementKindRejected(keyword: string): PlatformError {
  if (['SELECT', 'WITH', 'FROM', 'VALUES', 'TABLE', 'DESCRIBE', ''].includes(keyword)) {
    return rejected(
      'only one read-only SELECT, WITH or DESCRIBE statement is allowed, and this text holds another kind of ' +
        "statement; send a single SELECT over the model's tables.",
    );
  }
  return rejected(
    `only SELECT, WITH and DESCRIBE statements are allowed (found ${keyword}); send one read-only SELECT over the ` +
      `model's tables.`,
  );
}

/**
 * Rejection of EXPLAIN in every spelling. EXPLAIN ANALYZE would run the statement; a plain plan
 * would show the base tables, hidden columns and predicates that the model's views hide.
 * @param analyze - true for EXPLAIN ANALYZE / ANALYSE
 *
 * Source: spec/semantic-query-service.md § Query validation (2, 3)
 */
export function explainRefused(analyze: boolean): PlatformError {
  const why = analyze
    ? 'EXPLAIN ANALYZE is not allowed because it runs the statement'
    : "EXPLAIN is not available because a plan would show how the model's datasets are built, which their views hide";
  return rejected(
    `${why}. To check a query, run it with LIMIT 1, or use DESCRIBE SELECT … to see the columns it returns.`,
  );
}

/**
 * Rejection of a construct the validator does not know (fail closed).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function unsupportedConstruct(what: string): PlatformError {
  return rejected(
    `unsupported SQL construct (${what}); rewrite the query with plain SELECT features over the model's tables.`,
  );
}
