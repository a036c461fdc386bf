/**
 * The shapes `startTelemetry` (./start.ts) and the SDK (./sdk.ts) share, apart so that neither imports the other's
 * module for its types. Source: docs/decisions.md D25 § 1.
 */

/** The environment, as each `main.ts` passes it (the OTEL_* variables). */
export type TelemetryEnv = Record<string, string | undefined>;

/** What `startTelemetry` started. */
export interface Telemetry {
  /** True when traces are exported. */
  traces: boolean;
  /** True when metrics are exported or scraped. */
  metrics: boolean;
  /** Flushes what is queued (bounded by the SDK's export timeout) and stops; never throws. */
  shutdown(): Promise<void>;
}
