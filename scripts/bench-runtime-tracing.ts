/**
 * Tracing on and off within one bench process (`scripts/bench-runtime --tracing`): the SDK of bins/telemetry is
 * started once toward a receiver on loopback (OTLP/HTTP protobuf), and its tracer provider, context manager and
 * propagator are registered only around the traced column's turns, so the other columns run as a product with the
 * variables unset does (the API's no-ops). Source: docs/decisions.md D25 § 4.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { startSdk } from '../bins/telemetry/sdk.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../test/helpers/otlp-receiver.ts';

/** Turns tracing on and off around one column's runs. */
export interface TracingSwitch {
  on(): void;
  off(): void;
  /** What the receiver got, flushed first; then everything stops. */
  close(): Promise<string>;
}

/** Starts a receiver and the SDK toward it, and leaves tracing off until `on()`. */
export async function tracingSwitch(): Promise<TracingSwitch> {
  const receiver: OtlpReceiver = await startOtlpReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '500' };
  const sdk = await startSdk(env, { defaultServiceName: 'cairn-bench', traces: true, metrics: false });
  const provider = trace.getTracerProvider();
  const delegate = 'getDelegate' in provider ? (provider as { getDelegate(): typeof provider }).getDelegate() : provider;
  const off = () => {
    trace.disable();
    context.disable();
    propagation.disable();
  };
  off();
  return {
    on: () => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(delegate);
    },
    off,
    close: async () => {
      trace.setGlobalTracerProvider(delegate);
      await sdk.shutdown();
      off();
      const exports = receiver.received.filter((r) => r.path === '/v1/traces');
      const kib = exports.reduce((n, r) => n + r.body.length, 0) / 1024;
      await receiver.close();
      return `receiver: ${exports.length} trace exports, ${kib.toFixed(0)} KiB; spans dropped: ${sdk.droppedSpans()}`;
    },
  };
}
