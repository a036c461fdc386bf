/**
 * seed-demo.test.ts against the compiled executables (dist/entrypoint).
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./seed-demo.test.ts');
export {};
