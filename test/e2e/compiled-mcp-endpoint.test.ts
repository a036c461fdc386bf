/**
 * mcp-endpoint.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer).
 * Why compiled: dist/api bundles the MCP SDK server (Streamable HTTP) of the workflow endpoints.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./mcp-endpoint.test.ts');
