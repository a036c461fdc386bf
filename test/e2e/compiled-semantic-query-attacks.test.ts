/**
 * semantic-query-attacks.test.ts against the compiled executables (dist/entrypoint, dist/cairn).
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./semantic-query-attacks.test.ts');
export {};
