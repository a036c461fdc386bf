/**
 * The cost of tracing on the front doors (`scripts/bench-endpoints --tracing`): parts 1 and 3 on this checkout's
 * product again with every process exporting its spans (OTLP/HTTP protobuf, the default protocol) to a receiver on
 * loopback, printed beside the untraced run of the same bench as ratios. With the variables unset nothing is loaded
 * (bins/telemetry/start.ts); run with `--baseline <the revision before the instrumentation>` to see that cost too.
 * Source: docs/decisions.md D25 § 4.
 */
import { startOtlpReceiver } from '../test/helpers/otlp-receiver.ts';
import { fixed, type ProductRun } from './bench-endpoints-baseline.ts';

/** The variables that turn tracing on for a product, toward `endpoint`. */
export function tracingEnv(endpoint: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '1000' };
}

/**
 * Runs `run` (parts 1 and 3 of a product started with the extra variables it is given) with a receiver, and prints
 * the traced figures beside `untraced`.
 */
export async function tracingComparison(
  untraced: ProductRun,
  run: (env: Record<string, string>) => Promise<ProductRun>,
): Promise<string[]> {
  const receiver = await startOtlpReceiver();
  try {
    const traced = await run(tracingEnv(receiver.url));
    const exports = receiver.received.filter((r) => r.path === '/v1/traces');
    const bytes = exports.reduce((n, r) => n + r.body.length, 0);
    const row = (label: string, off: number, on: number, unit: string) =>
      `${label.padEnd(34)} ${fixed(off, 2, 10)} ${fixed(on, 2, 10)} ${fixed(on / off, 2, 8)}  ${unit}`;
    const [a, b] = [untraced.webhook, traced.webhook];
    const lines = ['', 'tracing: the same product with every process exporting spans to a receiver on loopback (OTLP/HTTP)',
      `${'figure'.padEnd(34)} ${'off'.padStart(10)} ${'on'.padStart(10)} ${'on/off'.padStart(8)}`];
    if (a && b) {
      lines.push(row('webhook 202 per s', a.hooks.perSecond, b.hooks.perSecond, '/s'));
      lines.push(row('webhook 202 p99', a.hooks.p99, b.hooks.p99, 'ms'));
      lines.push(row('webhook rate / health rate', a.hooks.perSecond / a.base.perSecond,
        b.hooks.perSecond / b.base.perSecond, ''));
      lines.push(row('dispatcher sessions ended per s', a.endedPerSecond ?? NaN, b.endedPerSecond ?? NaN, '/s'));
    }
    if (untraced.agui && traced.agui) {
      lines.push(row('AG-UI RUN_STARTED p50', untraced.agui.startedP50, traced.agui.startedP50, 'ms'));
    }
    lines.push(`receiver: ${exports.length} trace exports, ${(bytes / 1024).toFixed(0)} KiB`);
    return lines;
  } finally {
    await receiver.close();
  }
}
