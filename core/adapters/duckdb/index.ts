/**
 * DuckDB adapter of the QueryEngine port: the public edge of this folder.
 * The query processes' own entry is query-process-server.ts (imported by the executable that runs them).
 *
 * Source: spec/semantic-query-service.md § What the service does, § Query validation.
 */
export { createDuckDbQueryEngine, type DuckDbQueryEngineDeps } from './duckdb-query-engine.ts';
export { createDuckDbParser, type DuckDbParser } from './parser.ts';
export type { QueryProcessCommand } from './query-process.ts';
