/**
 * A local OTLP/HTTP receiver on loopback for tests and benches: it keeps every request's path and body and answers
 * 200 `{}`, as a collector does. With `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` the bodies are JSON that
 * {@link OtlpReceiver.spans} reads. Source: docs/decisions.md D25.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/JSON sends it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
}

/** A received span with the `service.name` of its resource. */
export interface ExportedSpan {
  service: string;
  span: OtlpSpan;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every request received so far: path (`/v1/traces`, `/v1/metrics`) and body. */
  received: { path: string; body: Buffer }[];
  /** The spans of every `/v1/traces` request so far (http/json bodies only). */
  spans(): ExportedSpan[];
  close(): Promise<void>;
}

type TraceBody = {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};

/** Starts a receiver on a free loopback port. */
export function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: { path: string; body: Buffer }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const spans = () => received.filter((r) => r.path === '/v1/traces').flatMap((r) => {
    const sent = JSON.parse(r.body.toString()) as TraceBody;
    return sent.resourceSpans.flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ service, span })));
    });
  });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resolve({ url, received, spans, close });
  }));
}
