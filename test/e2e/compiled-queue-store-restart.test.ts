/**
 * queue-store-restart.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer).
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./queue-store-restart.test.ts');
