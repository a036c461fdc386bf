/**
 * Inbound server spans on a real Elysia app: a traced route continues the sender's `traceparent`, its handler runs
 * in the span's context (what `insertTurn` captures), and the span names the route template, never the endpoint's
 * address or the query; an untraced route gets no span. Source: docs/decisions.md D25 § 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Elysia } from 'elysia';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { activeTraceCarrier } from '../../core/telemetry/trace-context.ts';
import { inboundSpans, tracedRouteOf } from './inbound-spans.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
/** The spans ended so far (the processor hands them over asynchronously). */
const finished = async () => {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
};
const senderTrace = '0af7651916cd43dd8448eb211c80319c';
const traceparent = `00-${senderTrace}-b7ad6b7169203331-01`;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

const app = new Elysia().wrap(inboundSpans)
  .post('/api/webhooks/:address', async () => {
    await new Promise((r) => setTimeout(r, 5));
    return Response.json({ carrier: activeTraceCarrier() }, { status: 202 });
  })
  .get('/api/sessions/:id', () => Response.json({ error: 'nope' }, { status: 503 }))
  .get('/api/health', () => Response.json({ carrier: activeTraceCarrier() ?? null }));

describe('inbound server spans', () => {
  it('continues the sender\'s trace and runs the handler inside the span, naming only the route template', async () => {
    exporter.reset();
    const response = await app.handle(new Request('http://localhost/api/webhooks/cairn_ep_SECRETADDRESS?token=t0ps3cret', {
      method: 'POST', headers: { traceparent, 'content-type': 'application/json' }, body: '{"text":"hello"}',
    }));
    expect(response.status).toBe(202);
    const { carrier } = await response.json() as { carrier: { traceparent: string } };
    const [span] = await finished();
    expect(span).toBeDefined();
    expect(span!.name).toBe('POST /api/webhooks/{address}');
    expect(span!.spanContext().traceId).toBe(senderTrace);
    expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span!.attributes).toEqual({
      'http.request.method': 'POST', 'http.route': '/api/webhooks/{address}', 'url.path': '/api/webhooks/{address}',
      'http.response.status_code': 202,
    });
    // The handler saw the server span as its active context.
    expect(carrier.traceparent).toBe(`00-${senderTrace}-${span!.spanContext().spanId}-01`);
    expect(JSON.stringify([span!.name, span!.attributes, span!.events, span!.links])).not.toMatch(/SECRETADDRESS|t0ps3cret|hello/);
  });

  it('marks a 5xx answer as an error, and leaves untraced routes alone', async () => {
    exporter.reset();
    expect((await app.handle(new Request('http://localhost/api/sessions/s-1'))).status).toBe(503);
    const health = await (await app.handle(new Request('http://localhost/api/health', { headers: { traceparent } }))).json();
    expect(health).toEqual({ carrier: null });
    expect((await finished()).map((s) => [s.name, s.attributes['error.type'], s.status.code])).toEqual([
      ['GET /api/sessions/{id}', '503', 2],
    ]);
  });

  it('knows the traced routes', () => {
    expect(tracedRouteOf('/api/mcp/addr')).toBe('/api/mcp/{address}');
    expect(tracedRouteOf('/api/agui/addr')).toBe('/api/agui/{address}');
    expect(tracedRouteOf('/api/callbacks/addr')).toBe('/api/callbacks/{address}');
    expect(tracedRouteOf('/api/sessions')).toBe('/api/sessions');
    expect(tracedRouteOf('/api/sessions/s1/reply')).toBe('/api/sessions/{id}/reply');
    expect(tracedRouteOf('/api/agents/a/environments/main/workflows/w/sessions')).toBe('/api/agents/{agent}/environments/{env}/workflows/{workflow}/sessions');
    expect(tracedRouteOf('/api/agents/a/environments/main/sessions')).toBe('/api/agents/{agent}/environments/{env}/sessions');
    expect(tracedRouteOf('/api/orgs')).toBeUndefined();
    expect(tracedRouteOf('/api/webhooks/a/b')).toBeUndefined();
  });
});
