/**
 * otel-trace.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer): the SDK of
 * bins/telemetry, loaded only when the OTEL_* variables ask for it, is bundled into each executable.
 * Why compiled: dist/api, dist/dispatcher and dist/semantic-mcp bundle the OpenTelemetry SDK and OTLP exporters,
 * loaded only when tracing is on.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./otel-trace.test.ts');
