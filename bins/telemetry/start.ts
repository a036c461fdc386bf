/**
 * Starts the OpenTelemetry SDK of one process from the standard `OTEL_*` variables, or nothing at all: with no
 * OTLP endpoint, no Prometheus exporter and `OTEL_SDK_DISABLED` unset or false, the SDK is not even loaded and
 * every span and instrument of `core/telemetry` stays the API's no-op (the hot paths pay nothing).
 *
 * Variables read (as the specification of the SDK environment names them): `OTEL_SDK_DISABLED`,
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`,
 * `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`, `OTEL_SERVICE_NAME` (default: the process's own name,
 * `cairn-api`, `cairn-dispatcher`, `cairn-semantic-mcp`, `cairn-worker-host`); the SDK itself reads the rest
 * (`OTEL_EXPORTER_OTLP_PROTOCOL`, `…_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, …). Source: docs/decisions.md D25 § 1.
 */

import type { Telemetry, TelemetryEnv } from './telemetry-types.ts';

export type { Telemetry, TelemetryEnv } from './telemetry-types.ts';

const off: Telemetry = { traces: false, metrics: false, shutdown: async () => {} };

const listed = (value: string | undefined, name: string) =>
  (value ?? '').split(',').map((v) => v.trim().toLowerCase()).includes(name);

/** True when the variables ask for exported traces. */
export function tracesWanted(env: TelemetryEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || listed(env.OTEL_TRACES_EXPORTER, 'none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** True when the variables ask for pushed or scraped metrics. */
export function metricsWanted(env: TelemetryEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || listed(env.OTEL_METRICS_EXPORTER, 'none')) return false;
  if (listed(env.OTEL_METRICS_EXPORTER, 'prometheus')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts the SDK for `defaultServiceName` when the variables ask for it (see the module comment); otherwise
 * returns at once without loading it.
 * @param defaultServiceName - the service name when `OTEL_SERVICE_NAME` is unset, e.g. `cairn-api`
 */
export async function startTelemetry(env: TelemetryEnv, defaultServiceName: string): Promise<Telemetry> {
  const traces = tracesWanted(env);
  const metrics = metricsWanted(env);
  if (!traces && !metrics) return off;
  const { startSdk } = await import('./sdk.ts');
  return startSdk(env, { defaultServiceName, traces, metrics });
}
