/**
 * sign-in-oidc.test.ts against the compiled executables: dist/entrypoint and dist/cairn (scripts/build,
 * rebuilt by test/helpers/product.ts when a source is newer). Same tests, same assertions.
 * Why compiled: dist/api bundles openid-client and jose for OIDC sign-in.
 */
process.env.CAIRN_E2E_DIST = '1';
await import('./sign-in-oidc.test.ts');
export {};
