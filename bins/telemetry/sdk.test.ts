/**
 * The SDK against a real OTLP/HTTP receiver on loopback: spans of a caller's trace arrive as OTLP JSON under the
 * service name; with the collector gone, ending spans never throws and every span lost is counted (a full queue,
 * failed exports). Source: docs/decisions.md D25 § 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { startSdk } from './sdk.ts';
import { captureMessageContent } from './content-capture.ts';
import { traceSettings } from './otlp-settings.ts';

const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${callerTrace}-00f067aa0ba902b7-01`;

function receiver(): Promise<{ server: Server; url: string; bodies: { path: string; type: string; body: string }[] }> {
  const bodies: { path: string; type: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', type: request.headers['content-type'] ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies });
  }));
}

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
  metrics.disable();
});

describe('startSdk', () => {
  it('exports a span of the caller\'s trace as OTLP JSON under the default service name', async () => {
    const collector = await receiver();
    const sdk = await startSdk(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test' },
      { defaultServiceName: 'cairn-api', traces: true, metrics: false },
    );
    const parent = propagation.extract(ROOT_CONTEXT, { traceparent });
    context.with(parent, () => {
      const span = trace.getTracer('cairn').startSpan('POST /api/webhooks/{address}');
      context.with(trace.setSpan(context.active(), span), () => {
        // The active context is the span's (AsyncLocalStorage): what a handler inside it sees.
        expect(trace.getActiveSpan()?.spanContext().traceId).toBe(callerTrace);
      });
      span.end();
    });
    await sdk.shutdown();
    collector.server.close();
    expect(collector.bodies.map((b) => [b.path, b.type])).toEqual([['/v1/traces', 'application/json']]);
    const sent = JSON.parse(collector.bodies[0]!.body);
    const attributes = sent.resourceSpans[0].resource.attributes.map((a: { key: string; value: { stringValue?: string } }) => [a.key, a.value.stringValue]);
    expect(attributes).toEqual(expect.arrayContaining([['service.name', 'cairn-api'], ['deployment.environment.name', 'test']]));
    const span = sent.resourceSpans[0].scopeSpans[0].spans[0];
    expect(span).toMatchObject({ name: 'POST /api/webhooks/{address}', traceId: callerTrace, parentSpanId: '00f067aa0ba902b7' });
    expect(sdk.droppedSpans()).toBe(0);
  });

  it('never throws with the collector down, and counts every span it drops', async () => {
    const collector = await receiver();
    await new Promise((r) => collector.server.close(r));
    const sdk = await startSdk({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`, OTEL_BSP_MAX_QUEUE_SIZE: '2',
      OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_SERVICE_NAME: 'other', OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    }, { defaultServiceName: 'cairn-dispatcher', traces: true, metrics: false });
    for (let i = 0; i < 5; i += 1) trace.getTracer('cairn').startSpan(`span ${i}`).end();
    // Two wait in the queue; three were dropped at once.
    expect(sdk.droppedSpans()).toBe(3);
    await sdk.shutdown();
    // The two queued spans' export failed on the closed port: counted too.
    expect(sdk.droppedSpans()).toBe(5);
  });

  it('does not start tracing when only metrics are wanted', async () => {
    const sdk = await startSdk({ OTEL_METRICS_EXPORTER: 'none' }, { defaultServiceName: 'cairn-api', traces: false, metrics: true });
    expect(sdk.traces).toBe(false);
    expect(trace.getTracer('cairn').startSpan('x').isRecording()).toBe(false);
    await sdk.shutdown();
  });
});

describe('settings of the standard variables', () => {
  it('reads the per-signal endpoint, headers, protocol, batch bounds and sampler', () => {
    const settings = traceSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b,bad',
      OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '50', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }, 'cairn-worker-host');
    expect(settings).toMatchObject({
      url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf', headers: { 'x-api-key': 'a b' },
      batch: { maxQueueSize: 10, maxExportBatchSize: 10, scheduledDelayMillis: 5000 },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 }, serviceName: 'cairn-worker-host',
    });
    expect(traceSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/t', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }, 's').url).toBe('http://c/t');
  });

  it('captures message content only when the GenAI variable says true', () => {
    expect(captureMessageContent({})).toBe(false);
    expect(captureMessageContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' })).toBe(false);
    expect(captureMessageContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: ' TRUE ' })).toBe(true);
  });
});
