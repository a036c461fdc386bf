/**
 * semantic-batch-limits.test.ts against the compiled executables: dist/entrypoint and dist/cairn (scripts/build,
 * rebuilt by test/helpers/product.ts when a source is newer). Same tests, same assertions.
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./semantic-batch-limits.test.ts');
export {};
