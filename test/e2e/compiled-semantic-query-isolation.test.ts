/**
 * semantic-query-isolation.test.ts against the compiled executables: dist/entrypoint and dist/cairn
 * (scripts/build, rebuilt by test/helpers/product.ts when a source is newer); the compiled
 * semantic-mcp spawns itself as its query processes. Same tests, same assertions.
 * Why compiled: dist/semantic-mcp starts its DuckDB query processes from its own executable (query-process-command.ts)
 * and kills a runaway one.
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./semantic-query-isolation.test.ts');
export {};
