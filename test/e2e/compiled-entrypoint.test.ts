/**
 * entrypoint.test.ts against the compiled executables: dist/entrypoint and dist/cairn (scripts/build,
 * rebuilt by test/helpers/product.ts when a source is newer). Same tests, same assertions.
 * Why compiled: dist/entrypoint supervises the compiled processes and Caddy; dist/cairn is the CLI as users get it.
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./entrypoint.test.ts');
export {};
