/**
 * The Prometheus scrape endpoint of one process: `GET /metrics` on `host:port`, served by cairn's own `node:http`
 * server with the exporter's request handler (`PrometheusExporter`, `preventServerStart: true`), so the exporter's
 * own listener (every interface by default) never opens. With a token, every request must carry
 * `Authorization: Bearer <token>` (compared in constant time) or is answered 401; off loopback a token is required
 * (see `prometheusSettings` in `./metric-readers.ts`). Source: docs/decisions.md D25 § 2.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';

/** Where and how the endpoint listens. */
export interface PrometheusEndpointSettings {
  /** Listening address (default 127.0.0.1: OTEL_EXPORTER_PROMETHEUS_HOST). */
  host: string;
  /** Listening port (default 9464: OTEL_EXPORTER_PROMETHEUS_PORT; 0 picks a free one). */
  port: number;
  /** Bearer token every scrape must carry (CAIRN_METRICS_TOKEN); absent: none asked (loopback only). */
  token?: string;
}

/** The path scraped. */
export const METRICS_PATH = '/metrics';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * True when `authorization` is `Bearer <token>`; the comparison takes the same time whatever the value (both sides
 * hashed to 32 bytes first, so a length differing tells nothing either).
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  const same = timingSafeEqual(digest(match?.[1] ?? ''), digest(token));
  return match !== null && same;
}

/** The exporter, closing cairn's server when the SDK shuts its readers down. */
class ServedPrometheusExporter extends PrometheusExporter {
  constructor(private readonly endpoint: Server) {
    super({ preventServerStart: true });
  }

  override async onShutdown(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.endpoint.close(() => resolve());
      this.endpoint.closeAllConnections();
    });
    await super.onShutdown();
  }
}

/** Answers one request: 404 off the path, 405 for other methods, 401 without the bearer, else the metrics. */
function answer(
  exporter: PrometheusExporter,
  token: string | undefined,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    let path = '';
    try {
      path = new URL(request.url ?? '/', 'http://metrics.invalid').pathname;
    } catch {
      // answered 404 below
    }
    if (path !== METRICS_PATH) return void response.writeHead(404).end();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
    }
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      return void response.writeHead(401, { 'www-authenticate': 'Bearer realm="cairn metrics"' }).end();
    }
    exporter.getMetricsRequestHandler(request, response);
  };
}

/** The endpoint started: the reader to give the meter provider, and the address it listens on. */
export interface PrometheusEndpoint {
  reader: PrometheusExporter;
  /** `http://host:port/metrics` (the port bound, when 0 was asked). */
  url: string;
}

/**
 * Starts the endpoint and resolves once it listens.
 * @throws the listen error (e.g. `EADDRINUSE`), the server closed
 */
export async function startPrometheusEndpoint(settings: PrometheusEndpointSettings): Promise<PrometheusEndpoint> {
  const server = createServer();
  const reader = new ServedPrometheusExporter(server);
  server.on('request', answer(reader, settings.token));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: settings.host, port: settings.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return { reader, url: `http://${host}:${port}${METRICS_PATH}` };
}
