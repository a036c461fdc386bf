/**
 * DuckDB adapter of the QueryEngine port: the public edge of this folder.
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does, § Query validation.
 */
export { createDuckDbQueryEngine, type DuckDbQueryEngineDeps } from './duckdb-query-engine.ts';
export { createDuckDbParser, type DuckDbParser } from './parser.ts';
