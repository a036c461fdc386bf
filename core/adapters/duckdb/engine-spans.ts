/**
 * Spans of the DuckDB engine's work within a semantic call (database semantic conventions: `db.system.name`
 * `duckdb`, `db.operation.name`); never the SQL text, its parameters or row values. Over `@opentelemetry/api`
 * only: a no-op until semantic-mcp starts the SDK. Source: docs/decisions.md D25 § 1.
 */
import { type Attributes, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * Runs `work` inside a client span `name` with `attributes` plus `db.system.name` `duckdb`; a failure marks the
 * span with its `code` (a PlatformError's) or its class, never its message (engine text may quote rows).
 */
export async function inEngineSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  const options = { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'duckdb', ...attributes } };
  return trace.getTracer('cairn').startActiveSpan(name, options, async (span) => {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      span.setAttribute('error.type', typeof code === 'string' ? code : (error as Error).name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
