/**
 * Query validation of the semantic service: the public edge of this folder.
 *
 * Source: spec/semantic-query-service.md § Query validation.
 */
export { type ValidatedQuery, validateQuery, type ValidateQueryInput } from './validate-query.ts';
export { queryParseErrorCode, queryRejectedCode } from './messages.ts';
export {
  checkViewQueries,
  type CheckViewQueriesInput,
  findVolatileUse,
  steadyFunctions,
  viewQueryVolatileCode,
  volatileFunctions,
  volatileKeywords,
  type VolatileUse,
} from './view-volatility.ts';
