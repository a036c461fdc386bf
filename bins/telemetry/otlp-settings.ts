/**
 * The trace export settings the standard `OTEL_*` variables give (the OpenTelemetry SDK environment specification),
 * read from the environment `main.ts` passes rather than from the process, so each is testable. Source:
 * docs/decisions.md D25 § 1.
 */
import type { TelemetryEnv } from './telemetry-types.ts';

/** OTLP transport of the trace exporter. */
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** The batch span processor's bounds (`OTEL_BSP_*`). */
export interface BatchSettings {
  /** `OTEL_BSP_SCHEDULE_DELAY`, ms between exports (default 5000). */
  scheduledDelayMillis: number;
  /** `OTEL_BSP_EXPORT_TIMEOUT`, ms an export may take (default 30000). */
  exportTimeoutMillis: number;
  /** `OTEL_BSP_MAX_QUEUE_SIZE`, spans held at most; more are dropped and counted (default 2048). */
  maxQueueSize: number;
  /** `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, spans per export at most (default 512, at most the queue size). */
  maxExportBatchSize: number;
}

/** The sampler `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name. */
export interface SamplerSettings {
  /** `always_on`, `always_off`, `traceidratio`, or one of them behind `parentbased_` (default parentbased_always_on). */
  name: string;
  /** The ratio of `traceidratio` (0 to 1; default 1). */
  ratio: number;
}

/** Everything the trace pipeline is built from. */
export interface TraceSettings {
  /** Where spans go: the per-signal endpoint as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (HTTP). */
  url: string;
  protocol: OtlpProtocol;
  /** `OTEL_EXPORTER_OTLP_HEADERS` then `…_TRACES_HEADERS` (`key=value,…`, values URL-decoded). */
  headers: Record<string, string>;
  /** `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or `OTEL_EXPORTER_OTLP_TIMEOUT`, ms per export request (default 10000). */
  timeoutMillis: number;
  batch: BatchSettings;
  sampler: SamplerSettings;
  /** `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else the process's own name. */
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`, values URL-decoded). */
  resourceAttributes: Record<string, string>;
}

/** `key=value,key2=value2` (URL-decoded values; malformed entries skipped). */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (text ?? '').split(',')) {
    const at = entry.indexOf('=');
    if (at <= 0) continue;
    const key = entry.slice(0, at).trim();
    try {
      if (key) out[key] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch { /* not URL-encoded properly: skipped */ }
  }
  return out;
}

const positive = (text: string | undefined, fallback: number) => {
  const value = Number(text);
  return text !== undefined && text.trim() !== '' && Number.isFinite(value) && value > 0 ? value : fallback;
};

function protocolOf(env: TelemetryEnv): OtlpProtocol {
  const given = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  return given === 'http/json' || given === 'grpc' ? given : 'http/protobuf';
}

function urlOf(env: TelemetryEnv, protocol: OtlpProtocol): string {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (own) return own;
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (protocol === 'grpc') return base;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function batchOf(env: TelemetryEnv): BatchSettings {
  const maxQueueSize = positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048);
  return {
    scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
    exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000),
    maxQueueSize,
    maxExportBatchSize: Math.min(positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512), maxQueueSize),
  };
}

/** The settings of `env` for a process named `defaultServiceName` (see {@link TraceSettings}). */
export function traceSettings(env: TelemetryEnv, defaultServiceName: string): TraceSettings {
  const protocol = protocolOf(env);
  const resourceAttributes = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES);
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG);
  return {
    url: urlOf(env, protocol),
    protocol,
    headers: { ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    timeoutMillis: positive(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
    batch: batchOf(env),
    sampler: {
      name: (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase() || 'parentbased_always_on',
      ratio: Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 && env.OTEL_TRACES_SAMPLER_ARG?.trim() ? ratio : 1,
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || defaultServiceName,
    resourceAttributes,
  };
}
