/**
 * The hop across the queue store: a job that carries the W3C trace context of the request that queued it
 * (`trace` in its data, from {@link activeTraceCarrier}) is handled inside a consumer span parented from it, so what
 * the handler creates (a session's first turn record, through `insertTurn`) continues the sender's trace. With no SDK
 * registered every call here is the API's no-op. Source: docs/decisions.md D25 § 1.
 */
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from './spans.ts';
import { contextOf, type TraceCarrier } from './trace-context.ts';

/**
 * Runs `handle` inside a consumer span `process <queue>` (messaging semantic conventions: `messaging.operation.type`
 * `process`, `messaging.destination.name` the queue) whose parent is the context `carrier` names (none: a new
 * trace). The span ends when `handle` settles; a failure marks it with the error's class, never its message.
 */
export function inQueueSpan<T>(
  queue: string,
  carrier: TraceCarrier | undefined,
  handle: () => Promise<T>,
): Promise<T> {
  return inSpan(`process ${queue}`, {
    parent: contextOf(carrier),
    kind: SpanKind.CONSUMER,
    attributes: { 'messaging.operation.type': 'process', 'messaging.destination.name': queue },
  }, handle);
}
