/**
 * agent-routes.test.ts with the compiled `cairn` command (dist/cairn, rebuilt by scripts/build when a source
 * is newer); the API under test runs from sources as in the original.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./agent-routes.test.ts');
