/**
 * The metric readers on real servers: the Prometheus endpoint scraped over loopback (401 without the bearer when a
 * token is set, as it must be off loopback; refused without a token off loopback), and the OTLP exporter pushing
 * to a loopback receiver in each protocol. Source: docs/decisions.md D25 § 2.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { freePort } from '../../test/helpers/ports.ts';
import { metricReaders, otlpMetricsSettings, prometheusSettings } from './metric-readers.ts';
import { bearerMatches } from './prometheus-endpoint.ts';

const providers: MeterProvider[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A provider over `readers` with one counter added to, as cairn's instruments do. */
function provide(readers: MetricReader[]): void {
  const provider = new MeterProvider({ readers });
  providers.push(provider);
  provider.getMeter('cairn').createCounter('cairn.test.things', { unit: '{thing}' }).add(3, { 'cairn.outcome': 'ok' });
}

describe('the Prometheus endpoint', () => {
  it('listens on 127.0.0.1:9464 by default and asks no token there', () => {
    expect(prometheusSettings({ OTEL_METRICS_EXPORTER: 'prometheus' })).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(prometheusSettings({ OTEL_METRICS_EXPORTER: 'otlp' })).toBeUndefined();
  });

  it('serves the metrics on loopback without a token', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const readers = await metricReaders({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(port) }, (l) => lines.push(l));
    provide(readers);
    expect(lines).toEqual([`[telemetry] metrics on http://127.0.0.1:${port}/metrics`]);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^cairn_test_things_total\{.*cairn_outcome="ok".*\} 3$/m);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('refuses to start off loopback without CAIRN_METRICS_TOKEN, naming it', async () => {
    const port = await freePort();
    const env = { OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0', OTEL_EXPORTER_PROMETHEUS_PORT: String(port) };
    expect(() => prometheusSettings(env)).toThrow(/CAIRN_METRICS_TOKEN is unset/);
    const lines: string[] = [];
    expect(await metricReaders(env, (l) => lines.push(l))).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[telemetry\] the Prometheus endpoint is not started: .*CAIRN_METRICS_TOKEN/);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('answers 401 off loopback without the bearer token, and the metrics with it', async () => {
    const port = await freePort();
    const token = 'scrape-secret-7f3a';
    const lines: string[] = [];
    provide(await metricReaders({
      OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port), CAIRN_METRICS_TOKEN: token,
    }, (l) => lines.push(l)));
    expect(lines.join('\n')).not.toContain(token);
    const url = `http://127.0.0.1:${port}/metrics`;
    const bare = await fetch(url);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
    const scraped = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('cairn_test_things_total');
  });

  it('compares the bearer whatever its length', () => {
    expect(bearerMatches('Bearer abc', 'abc')).toBe(true);
    expect(bearerMatches('bearer abc', 'abc')).toBe(true);
    expect(bearerMatches('Bearer abcd', 'abc')).toBe(false);
    expect(bearerMatches('Bearer ', 'abc')).toBe(false);
    expect(bearerMatches(undefined, 'abc')).toBe(false);
  });

  it('leaves the endpoint out with one line when its port is taken', async () => {
    const port = await freePort();
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
    const lines: string[] = [];
    expect(await metricReaders({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(port) }, (l) => lines.push(l))).toEqual([]);
    expect(lines[0]).toMatch(/^\[telemetry\] the Prometheus endpoint is not started: .*EADDRINUSE/);
  });
});

describe('the OTLP metrics exporter', () => {
  it('reads the endpoint, protocol and interval from the variables', () => {
    expect(otlpMetricsSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({ url: 'http://c:4318/v1/metrics', protocol: 'http/protobuf', intervalMs: 60_000, timeoutMs: 30_000 });
    expect(otlpMetricsSettings({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c/m', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '5000' }))
      .toEqual({ url: 'http://c/m', protocol: 'http/json', intervalMs: 5000, timeoutMs: 5000 });
    expect(otlpMetricsSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_METRICS_EXPORTER: 'prometheus' })).toBeUndefined();
    expect(() => otlpMetricsSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'udp' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => otlpMetricsSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_METRIC_EXPORT_INTERVAL: 'soon' })).toThrow(/OTEL_METRIC_EXPORT_INTERVAL/);
  });

  for (const [protocol, type] of [['http/protobuf', 'application/x-protobuf'], ['http/json', 'application/json']]) {
    it(`pushes to the metrics endpoint over ${protocol}`, async () => {
      const received: { path: string; type: string; body: string }[] = [];
      const receiver = createServer((request: IncomingMessage, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (c: Buffer) => chunks.push(c));
        request.on('end', () => {
          received.push({ path: request.url ?? '', type: String(request.headers['content-type']), body: Buffer.concat(chunks).toString('latin1') });
          response.writeHead(200, { 'content-type': type }).end(protocol === 'http/json' ? '{}' : '');
        });
      });
      servers.push(receiver);
      const port = await freePort();
      await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', r));
      const readers = await metricReaders({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      expect(readers).toHaveLength(1);
      provide(readers);
      await providers[0]!.forceFlush();
      expect(received[0]).toMatchObject({ path: '/v1/metrics', type });
      expect(received[0]!.body).toContain('cairn.test.things');
    });
  }
});
