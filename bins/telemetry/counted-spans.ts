/**
 * A bounded, counted span pipeline: a collector that is down or slow never slows or fails a request. Spans wait in
 * the batch span processor's queue (bounded by `OTEL_BSP_MAX_QUEUE_SIZE`); a span ended while that many wait or are
 * being exported is dropped at once, and so are the spans of a failed export: each drop is counted (the counter
 * `cairn.telemetry.spans.dropped`, and {@link CountedSpans.dropped} for tests). Nothing here throws to its caller.
 * Source: docs/decisions.md D25 § 1.
 */
import { type Context, type Counter, metrics, TraceFlags } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { BatchSettings } from './otlp-settings.ts';

/** The name of the counter of dropped spans (unit `{span}`; attribute `reason`: `queue_full` or `export_failed`). */
export const DROPPED_SPANS_METRIC = 'cairn.telemetry.spans.dropped';

/** The processor to register, and what it dropped. */
export interface CountedSpans {
  processor: SpanProcessor;
  /** Spans dropped so far (a full queue, a failed export). */
  dropped(): number;
}

/**
 * Wraps `exporter` in a batch span processor of `batch`'s bounds whose drops are counted.
 * The counter is made from the global meter provider as it is now: register metrics first.
 */
export function countedSpanProcessor(exporter: SpanExporter, batch: BatchSettings): CountedSpans {
  const counter: Counter = metrics.getMeter('cairn').createCounter(DROPPED_SPANS_METRIC, {
    description: 'Spans dropped before export: the export queue was full, or their export failed.',
    unit: '{span}',
  });
  let dropped = 0;
  /** Spans handed to the batch processor and not yet through an export (queued or in flight). */
  let pending = 0;
  const drop = (count: number, reason: 'queue_full' | 'export_failed') => {
    dropped += count;
    counter.add(count, { reason });
  };
  const counting: SpanExporter = {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      const settle = (result: ExportResult) => {
        pending = Math.max(0, pending - spans.length);
        if (result.code !== ExportResultCode.SUCCESS) drop(spans.length, 'export_failed');
        done(result);
      };
      try {
        exporter.export(spans, settle);
      } catch (error) {
        settle({ code: ExportResultCode.FAILED, error: error as Error });
      }
    },
    shutdown: () => exporter.shutdown().catch(() => undefined),
    forceFlush: () => exporter.forceFlush?.().catch(() => undefined) ?? Promise.resolve(),
  };
  const batcher = new BatchSpanProcessor({ exporter: counting, ...batch });
  const processor: SpanProcessor = {
    onStart: (span: Span, parent: Context) => batcher.onStart(span, parent),
    onEnd(span: ReadableSpan) {
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
      if (pending >= batch.maxQueueSize) return drop(1, 'queue_full');
      pending += 1;
      batcher.onEnd(span);
    },
    forceFlush: () => batcher.forceFlush().catch(() => undefined),
    shutdown: () => batcher.shutdown().catch(() => undefined),
  };
  return { processor, dropped: () => dropped };
}
