/**
 * Spans of the DuckDB engine's work within a semantic call (database semantic conventions: `db.system.name`
 * `duckdb`, `db.operation.name`); never the SQL text, its parameters or row values. Over `@opentelemetry/api`
 * only: a no-op until semantic-mcp starts the SDK. Source: docs/decisions.md D25 § 1.
 */
import { type Attributes, SpanKind } from '@opentelemetry/api';
import { inSpan } from '../../telemetry/spans.ts';

/**
 * Runs `work` inside a client span `name` with `attributes` plus `db.system.name` `duckdb`; a failure marks the
 * span with its code (core/telemetry/spans.ts), never its message (engine text may quote rows).
 */
export function inEngineSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return inSpan(name, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'duckdb', ...attributes } }, work);
}
