/**
 * semantic-build-share.test.ts with the compiled executables (dist/, rebuilt by scripts/build when a source is newer).
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./semantic-build-share.test.ts');
