/**
 * prometheus-scrape.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer): the SDK of
 * bins/telemetry, loaded only when the OTEL_* variables ask for it, is bundled into each executable.
 * Why compiled: the Prometheus exporter bundled in dist/api, dist/dispatcher and dist/semantic-mcp serves /metrics.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./prometheus-scrape.test.ts');
