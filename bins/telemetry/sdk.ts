/**
 * The OpenTelemetry SDK of one process, loaded by `startTelemetry` (./start.ts) only when the variables ask for it:
 * the W3C trace-context (and baggage) propagator, the AsyncLocalStorage context manager, a tracer provider whose
 * spans go to the OTLP endpoint (`http/protobuf` by default, `http/json`, `grpc`) through a bounded, counted batch
 * queue (./counted-spans.ts), and a meter provider with the readers of ./metric-readers.ts. No
 * auto-instrumentation: cairn makes its own spans (core/telemetry). Source: docs/decisions.md D25 § 1.
 */
import { context, diag, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { countedSpanProcessor } from './counted-spans.ts';
import { metricReaders } from './metric-readers.ts';
import { type SamplerSettings, traceSettings, type TraceSettings } from './otlp-settings.ts';
import type { Telemetry, TelemetryEnv } from './telemetry-types.ts';

/** What {@link startSdk} starts: the signals `startTelemetry` found wanted, and the default service name. */
export interface SdkOptions {
  /** `cairn-api`, `cairn-dispatcher`, `cairn-semantic-mcp` or `cairn-worker-host` (`OTEL_SERVICE_NAME` wins). */
  defaultServiceName: string;
  traces: boolean;
  metrics: boolean;
}

/** The started SDK, and the spans it dropped (a full queue, failed exports). */
export interface StartedSdk extends Telemetry {
  /** Spans dropped so far (also the counter `cairn.telemetry.spans.dropped`). */
  droppedSpans(): number;
}

/** How long a stop waits for the last export at most, in ms. */
const SHUTDOWN_BOUND_MS = 5_000;

/**
 * Registers the SDK globally for this process (see the module comment). Never throws on a collector that is down:
 * exports fail quietly and are counted. A second start in one process replaces the first's registrations.
 */
export async function startSdk(env: TelemetryEnv, options: SdkOptions): Promise<StartedSdk> {
  const settings = traceSettings(env, options.defaultServiceName);
  const resource = defaultResource().merge(resourceFromAttributes({
    ...settings.resourceAttributes,
    'service.name': settings.serviceName,
  }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  }));
  const meterProvider = options.metrics ? new MeterProvider({ resource, readers: await metricReaders(env) }) : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);
  const tracing = options.traces ? await tracerProvider(settings, resource) : undefined;
  if (tracing) trace.setGlobalTracerProvider(tracing.provider);
  return {
    traces: tracing !== undefined,
    metrics: meterProvider !== undefined,
    droppedSpans: () => tracing?.dropped() ?? 0,
    shutdown: () => bounded(Promise.all([tracing?.provider.shutdown(), meterProvider?.shutdown()])),
  };
}

async function tracerProvider(settings: TraceSettings, resource: Resource) {
  const exporter = await otlpExporter(settings);
  const counted = countedSpanProcessor(exporter, settings.batch);
  const provider = new TracerProvider({
    resource, sampler: samplerOf(settings.sampler), spanProcessors: [counted.processor],
  });
  return { provider, dropped: counted.dropped };
}

/** The OTLP span exporter of the protocol (each loaded only when chosen). */
async function otlpExporter(settings: TraceSettings): Promise<SpanExporter> {
  const config = { url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMillis };
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  if (settings.protocol === 'grpc') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter({ url: settings.url, timeoutMillis: settings.timeoutMillis });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

/** The sampler `OTEL_TRACES_SAMPLER` names (an unknown name: parentbased_always_on, with one diagnostic line). */
export function samplerOf(settings: SamplerSettings): Sampler {
  const root = (name: string): Sampler | undefined => {
    if (name === 'always_on') return new AlwaysOnSampler();
    if (name === 'always_off') return new AlwaysOffSampler();
    if (name === 'traceidratio') return new TraceIdRatioBasedSampler(settings.ratio);
    return undefined;
  };
  const direct = root(settings.name);
  if (direct) return direct;
  const parented = settings.name.startsWith('parentbased_') ? root(settings.name.slice('parentbased_'.length)) : undefined;
  if (!parented && settings.name !== 'parentbased_always_on') {
    diag.warn(`OTEL_TRACES_SAMPLER "${settings.name}" is not known: parentbased_always_on`);
  }
  return new ParentBasedSampler({ root: parented ?? new AlwaysOnSampler() });
}

/** `work`, waited for at most {@link SHUTDOWN_BOUND_MS}; its failure is swallowed (a stop never fails on export). */
async function bounded(work: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SHUTDOWN_BOUND_MS);
  });
  await Promise.race([work.then(() => undefined, () => undefined), limit]);
  clearTimeout(timer);
}
