/**
 * Query validation of the semantic service: the public edge of this folder.
 *
 * Source: spec/semantic-query-service.md § Query validation.
 */
export { validateQuery, type ValidateQueryInput, type ValidatedQuery } from './validate-query.ts';
export { queryParseErrorCode, queryRejectedCode } from './messages.ts';
