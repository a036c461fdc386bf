/**
 * W3C trace context carried across the queue store and the document store: a turn record keeps the context of the
 * request (or firing) that caused it, so the dispatcher that runs the turn continues the caller's trace. With no
 * OpenTelemetry SDK registered (the default), the propagator is a no-op: carriers stay empty and nothing is paid.
 * Source: docs/decisions.md D25 (observability).
 */
import { type Context, context, type Link, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';

/** The W3C `traceparent` (and `tracestate`) of a span, as stored on records and job data. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The carrier of the active context (or `ctx`); undefined when no span is recording (no SDK, or not sampled). */
export function activeTraceCarrier(ctx: Context = context.active()): TraceCarrier | undefined {
  if (trace.getSpan(ctx) === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (typeof carrier.traceparent !== 'string') return undefined;
  return {
    traceparent: carrier.traceparent,
    ...(typeof carrier.tracestate === 'string' ? { tracestate: carrier.tracestate } : {}),
  };
}

/** The context a carrier names (the root context when it names none or is malformed). */
export function contextOf(carrier: TraceCarrier | undefined): Context {
  if (carrier?.traceparent === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** A span link to the span a carrier names; undefined when it names none. */
export function linkOf(carrier: TraceCarrier | undefined): Link | undefined {
  const spanContext = trace.getSpanContext(contextOf(carrier));
  return spanContext === undefined ? undefined : { context: spanContext };
}
