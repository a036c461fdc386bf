/**
 * web-decision-fields.test.ts with the compiled `cairn` command (dist/cairn, rebuilt by scripts/build when a source
 * is newer) importing the test agent; the product under test runs as `scripts/start` starts it, as in the original.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./web-decision-fields.test.ts');
