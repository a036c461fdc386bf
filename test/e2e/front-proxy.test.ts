/**
 * The front proxy (Caddy with proxy/Caddyfile) against upstream test servers on the API and MCP ports:
 * every route, response header, the gzip rule, unbuffered event streams, body limits, forwarded
 * addresses, /assets/ and the SPA fallback.
 * Source: spec/platform-service.md § Front proxy routes, § Limits, § Errors.
 */
import { spawnSync } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaddy, type RunningCaddy } from '../helpers/caddy.ts';
import { freePort } from '../helpers/ports.ts';
import { repoRoot } from '../helpers/product.ts';

let caddy: RunningCaddy;
let api: Server;
let apiPort: number;
const seen: { url?: string; headers?: IncomingMessage['headers']; bodyBytes?: number; httpVersion?: string }[] = [];
let releaseStream: (() => void) | undefined;

function upstream(): Server {
  return createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => { bytes += c.length; });
    req.on('end', () => {
      seen.push({ url: req.url, headers: req.headers, bodyBytes: bytes, httpVersion: req.httpVersion });
      if (req.url === '/api/health/ready') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"test"}');
      if (req.url === '/api/big') return void res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private, max-age=5' }).end(JSON.stringify({ data: 'x'.repeat(2000) }));
      if (req.url === '/api/small') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (req.url === '/api/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`data: ${'first event '.repeat(40)}\n\n`);
        releaseStream = () => res.end(`data: ${'last event '.repeat(40)}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes }));
    });
  });
}

beforeAll(async () => {
  apiPort = await freePort();
  api = upstream();
  await new Promise<void>((r) => api.listen(apiPort, '127.0.0.1', r));
  caddy = await startCaddy({ apiPort, semanticMcpPort: await freePort() });
});

afterAll(async () => {
  await caddy?.stop();
  await new Promise((r) => api?.close(r));
});

const csp = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self' https:; frame-src 'self' https:; frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'; worker-src 'self' blob:";

function expectSecurityHeaders(headers: Headers, frame: 'DENY' | 'SAMEORIGIN' = 'DENY') {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe(frame);
  expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  expect(headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  expect(headers.get('permissions-policy')).toBe('camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()');
  expect(headers.get('content-security-policy')).toBe(frame === 'DENY' ? csp : csp.replace("frame-ancestors 'none'", "frame-ancestors 'self'"));
}

/** The built web app's stylesheet (content-hashed by Vite: scripts/build-web). */
const cssAsset = /href="(\/assets\/index-[^"]+\.css)"/.exec(readFileSync(join(repoRoot, 'dist', 'web', 'index.html'), 'utf8'))![1];

describe('front proxy', () => {
  it.each(['/', '/index.html', '/some/client/route', cssAsset, '/assets/missing.js', '/api/small', '/healthz'])('sets every security header on %s', async (path) => {
    expectSecurityHeaders((await fetch(`${caddy.url}${path}`)).headers);
  });

  it('lets only /silent-callback.html be framed, by the same origin', async () => {
    const response = await fetch(`${caddy.url}/silent-callback.html`);
    expect(response.status).toBe(200);
    expectSecurityHeaders(response.headers, 'SAMEORIGIN');
  });

  it('serves /assets/ as immutable and answers 404 for a missing asset, never the web app', async () => {
    const css = await fetch(`${caddy.url}${cssAsset}`);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${caddy.url}/assets/missing.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('<html');
  });

  it('falls back to index.html (no-cache) for client-side routes', async () => {
    const page = await fetch(`${caddy.url}/agents/a1/chat`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>cairn</title>');
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });

  it('passes /api/ over HTTP/1.1 with the API\'s own Cache-Control and forwarded headers from the socket, never from the caller', async () => {
    const response = await fetch(`${caddy.url}/api/big`, { headers: { 'x-forwarded-for': '6.6.6.6', 'x-real-ip': '6.6.6.6', 'x-lb-oidc-accesstoken': 'secret-access-token', 'x-lb-oidc-data': 'signed.identity.header' } });
    expect(response.headers.get('cache-control')).toBe('private, max-age=5');
    const request = seen.findLast((s) => s.url === '/api/big')!;
    expect(request.httpVersion).toBe('1.1');
    expect(request.headers!['x-real-ip']).toBe('127.0.0.1');
    expect(request.headers!['x-forwarded-for']).toBe('127.0.0.1');
    expect(request.headers!['x-forwarded-proto']).toBe('http');
    expect(request.headers!['x-forwarded-host']).toBe(new URL(caddy.url).host);
    expect(request.headers!['x-lb-oidc-accesstoken']).toBeUndefined();
    expect(request.headers!['x-lb-oidc-data']).toBe('signed.identity.header');
  });

  it('keeps the X-Forwarded-For of a proxy listed in PLATFORM_TRUSTED_PROXIES, appending the socket address', async () => {
    const trusting = await startCaddy({ apiPort, semanticMcpPort: await freePort(), trustedProxies: '127.0.0.1/32 10.0.0.0/8' });
    try {
      await fetch(`${trusting.url}/api/small`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(seen.findLast((s) => s.url === '/api/small')!.headers!['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    } finally {
      await trusting.stop();
    }
  });

  it('gzips JSON of 256 bytes or more, and not smaller bodies', async () => {
    const big = await rawGet('/api/big');
    expect(big.headers['content-encoding']).toBe('gzip');
    const small = await rawGet('/api/small');
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('streams event streams unbuffered and uncompressed', async () => {
    const first = await new Promise<{ headers: IncomingMessage['headers']; chunk: string }>((resolve, reject) => {
      httpRequest(`${caddy.url}/api/stream`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        res.once('data', (chunk: Buffer) => resolve({ headers: res.headers, chunk: chunk.toString() }));
      }).on('error', reject).end();
    });
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.chunk).toContain('first event');
    releaseStream?.();
  });

  it('passes bodies up to 21 MiB and refuses larger ones', async () => {
    const ok = await fetch(`${caddy.url}/api/upload`, { method: 'POST', body: new Uint8Array(20.5 * 1024 * 1024) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ bytes: 20.5 * 1024 * 1024 });
    const tooBig = await fetch(`${caddy.url}/api/upload`, { method: 'POST', body: new Uint8Array(21 * 1024 * 1024 + 1) });
    expect(tooBig.status).toBe(413);
    expectSecurityHeaders(tooBig.headers);
    expect(seen.filter((s) => s.url === '/api/upload')).toHaveLength(1);
  });

  it('maps /healthz to /api/health/ready and answers 502 when the API is down', async () => {
    expect((await fetch(`${caddy.url}/healthz`)).status).toBe(200);
    expect(seen.some((s) => s.url === '/api/health/ready')).toBe(true);
    const down = await startCaddy({ apiPort: await freePort(), semanticMcpPort: await freePort() });
    try {
      const response = await fetch(`${down.url}/healthz`);
      expect(response.status).toBe(502);
      expectSecurityHeaders(response.headers);
    } finally {
      await down.stop();
    }
  });

  it('is configured with a 300 s read timeout, no buffering and 32 KiB header lines', () => {
    const adapted = spawnSync('caddy', ['adapt', '--config', join(repoRoot, 'proxy/Caddyfile'), '--adapter', 'caddyfile'], { encoding: 'utf8', env: { ...process.env, WEB_ROOT: join(repoRoot, 'dist', 'web') } });
    const config = adapted.stdout;
    expect(config).toContain('"read_timeout":300000000000');
    expect(config).toContain('"flush_interval":-1');
    expect(config).toContain('"max_header_bytes":32768');
    expect(config).toContain('"max_size":22020096');
  });
});

function rawGet(path: string): Promise<{ headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    httpRequest(`${caddy.url}${path}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => { res.resume(); res.on('end', () => resolve({ headers: res.headers })); }).on('error', reject).end();
  });
}
