/**
 * seed-demo.test.ts against the compiled executables (dist/entrypoint).
 * Why compiled: dist/cairn carries the demo agent and flights project as embedded assets.
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./seed-demo.test.ts');
export {};
