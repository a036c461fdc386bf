/**
 * semantic-view-barrier.test.ts against the compiled executables (dist/entrypoint, dist/cairn).
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./semantic-view-barrier.test.ts');
export {};
