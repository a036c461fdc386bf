/**
 * The metric readers the variables ask for: a periodic OTLP exporter when an OTLP metrics endpoint is set, and the
 * Prometheus scrape endpoint when `OTEL_METRICS_EXPORTER` names `prometheus`. Source: docs/decisions.md D25 § 2.
 *
 * Variables: `OTEL_METRICS_EXPORTER` (comma list; unset means `otlp`), `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (the
 * full URL) or `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/metrics` appended), `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL` or
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, `http/json` or `grpc`; with `grpc` nothing is
 * appended), `OTEL_METRIC_EXPORT_INTERVAL` (ms, 60000) and `OTEL_METRIC_EXPORT_TIMEOUT` (ms, 30000; at most the
 * interval); `OTEL_EXPORTER_PROMETHEUS_HOST` (default 127.0.0.1, not the exporter's every interface),
 * `OTEL_EXPORTER_PROMETHEUS_PORT` (9464; the all-in-one entrypoint gives each process its own) and
 * `CAIRN_METRICS_TOKEN` (the bearer a scrape must carry; required when the host is not a loopback address). The
 * OTLP exporter reads its headers, compression and temporality itself.
 */
import ipaddr from 'ipaddr.js';
import { type MetricReader, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { type PrometheusEndpointSettings, startPrometheusEndpoint } from './prometheus-endpoint.ts';

/** The environment variables, passed in by a `main.ts` (the same shape as `TelemetryEnv` of ./start.ts). */
export type MetricsEnv = Record<string, string | undefined>;

/** Default address of the scrape endpoint: loopback only. */
export const DEFAULT_PROMETHEUS_HOST = '127.0.0.1';
/** Default port of the scrape endpoint (Prometheus's registered port of OpenTelemetry exporters). */
export const DEFAULT_PROMETHEUS_PORT = 9464;

/** A setting that stops one reader (not the process): its message is the line printed, naming the variable. */
export class MetricsSettingError extends Error {}

const listed = (value: string | undefined) =>
  (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

/** True for 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === 'loopback';
}

function positiveInteger(env: MetricsEnv, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new MetricsSettingError(`${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

/**
 * The scrape endpoint's settings, or undefined when `OTEL_METRICS_EXPORTER` does not name `prometheus`.
 * @throws MetricsSettingError naming `OTEL_EXPORTER_PROMETHEUS_PORT` (not a port) or `CAIRN_METRICS_TOKEN` (unset
 *   while the host is not a loopback address)
 */
export function prometheusSettings(env: MetricsEnv): PrometheusEndpointSettings | undefined {
  if (!listed(env.OTEL_METRICS_EXPORTER).includes('prometheus')) return undefined;
  const host = env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim() || DEFAULT_PROMETHEUS_HOST;
  const port = positiveInteger(env, 'OTEL_EXPORTER_PROMETHEUS_PORT', DEFAULT_PROMETHEUS_PORT, 65_535);
  const token = env.CAIRN_METRICS_TOKEN?.trim() || undefined;
  if (!token && !isLoopbackHost(host)) {
    throw new MetricsSettingError(
      `OTEL_EXPORTER_PROMETHEUS_HOST ${host} is not a loopback address and CAIRN_METRICS_TOKEN is unset: set `
        + 'CAIRN_METRICS_TOKEN (scrapers then send Authorization: Bearer <token>) or listen on 127.0.0.1',
    );
  }
  return { host, port, ...(token ? { token } : {}) };
}

/** What the OTLP metric exporter is given. */
export interface OtlpMetricsSettings {
  /** The metrics URL, e.g. `http://collector:4318/v1/metrics`. */
  url: string;
  protocol: 'http/protobuf' | 'http/json' | 'grpc';
  /** Milliseconds between exports. */
  intervalMs: number;
  /** Milliseconds one export may take (at most `intervalMs`). */
  timeoutMs: number;
}

/**
 * The OTLP exporter's settings, or undefined when no metrics endpoint is set or `OTEL_METRICS_EXPORTER` names
 * exporters without `otlp`.
 * @throws MetricsSettingError naming the protocol variable (another value) or an interval variable
 */
export function otlpMetricsSettings(env: MetricsEnv): OtlpMetricsSettings | undefined {
  const exporters = listed(env.OTEL_METRICS_EXPORTER);
  if (exporters.length > 0 && !exporters.includes('otlp')) return undefined;
  const name = env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[name]?.trim() || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json' && protocol !== 'grpc') {
    throw new MetricsSettingError(`${name} must be http/protobuf, http/json or grpc`);
  }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim().replace(/\/+$/, '');
  const path = protocol === 'grpc' ? '' : '/v1/metrics';
  const url = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim() || (base ? `${base}${path}` : '');
  if (!url) return undefined;
  const intervalMs = positiveInteger(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  const timeoutMs = Math.min(positiveInteger(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000), intervalMs);
  return { url, protocol, intervalMs, timeoutMs };
}

async function otlpReader(settings: OtlpMetricsSettings): Promise<MetricReader> {
  const { OTLPMetricExporter } = settings.protocol === 'http/json'
    ? await import('@opentelemetry/exporter-metrics-otlp-http')
    : settings.protocol === 'grpc'
    ? await import('@opentelemetry/exporter-metrics-otlp-grpc')
    : await import('@opentelemetry/exporter-metrics-otlp-proto');
  return new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: settings.url }),
    exportIntervalMillis: settings.intervalMs,
    exportTimeoutMillis: settings.timeoutMs,
  });
}

/** Runs one reader's start; a refused setting or a failed listen prints one line and gives no reader. */
async function attempt(
  what: string,
  start: () => Promise<MetricReader | undefined>,
  log: (line: string) => void,
): Promise<MetricReader[]> {
  try {
    const reader = await start();
    return reader ? [reader] : [];
  } catch (error) {
    log(`[telemetry] ${what} is not started: ${(error as Error).message}`);
    return [];
  }
}

/**
 * The readers for `env`, started by the SDK with the process's meter provider. A reader whose settings are refused
 * (a token missing off loopback, an unknown protocol) or whose port is taken is left out with one line on `log`
 * (never the token); the process runs on without it.
 * @param log - where the lines go (default: standard error)
 */
export async function metricReaders(
  env: MetricsEnv,
  log: (line: string) => void = (line) => console.error(line),
): Promise<MetricReader[]> {
  const otlp = await attempt('the OTLP metrics exporter', async () => {
    const settings = otlpMetricsSettings(env);
    return settings && await otlpReader(settings);
  }, log);
  const prometheus = await attempt('the Prometheus endpoint', async () => {
    const settings = prometheusSettings(env);
    if (!settings) return undefined;
    const endpoint = await startPrometheusEndpoint(settings);
    log(`[telemetry] metrics on ${endpoint.url}${settings.token ? ' (bearer token required)' : ''}`);
    return endpoint.reader;
  }, log);
  return [...otlp, ...prometheus];
}
