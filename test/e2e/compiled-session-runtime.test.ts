/**
 * session-runtime.test.ts against the compiled executables (dist/entrypoint, dist/api, dist/dispatcher, the Node
 * single executable dist/worker, dist/cairn), rebuilt by scripts/build when a source is newer.
 * Why compiled: dist/worker and dist/worker-host: the sandboxed turn worker is a separate compiled executable, started
 * by dist/dispatcher.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./session-runtime.test.ts');
