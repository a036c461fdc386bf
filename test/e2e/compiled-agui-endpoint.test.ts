/**
 * agui-endpoint.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer).
 * Why compiled: dist/api bundles @ag-ui/core and @ag-ui/proto (the binary encoding of the stream).
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./agui-endpoint.test.ts');
