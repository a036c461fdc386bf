/**
 * The front proxy (proxy/Caddyfile on real Caddy) cuts off slow clients: the request head must arrive within
 * read_header (10 s; shortened here with CAIRN_PROXY_READ_HEADER_TIMEOUT so the test does not wait long), and an
 * idle kept-alive connection is closed after 2 minutes; header lines up to 32 KiB are allowed. The configured values
 * are read from Caddy's own adaptation of the Caddyfile; the cut-off is observed on a real socket that sends half a
 * request head and then nothing (no timing is asserted: only that Caddy closes it without answering).
 *
 * Source: spec/platform-service.md § Limits (request header line 32 KiB); docs/decisions.md D17 § 6.
 */
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaddy, type RunningCaddy } from '../helpers/caddy.ts';
import { freePort } from '../helpers/ports.ts';
import { repoRoot } from '../helpers/product.ts';

let caddy: RunningCaddy;

beforeAll(async () => {
  const ports = { apiPort: await freePort(), semanticMcpPort: await freePort() };
  caddy = await startCaddy({ ...ports, env: { CAIRN_PROXY_READ_HEADER_TIMEOUT: '1s' } });
}, 30_000);
afterAll(async () => { await caddy?.stop(); });

describe('front proxy timeouts', () => {
  it('configures read_header 10 s, idle 2 min and 32 KiB header lines by default', () => {
    const env = { PATH: process.env.PATH, PORT: '8080', API_PORT: '3001', SEMANTIC_MCP_PORT: '3002', WEB_ROOT: '/tmp' };
    const config = join(repoRoot, 'proxy/Caddyfile');
    const adapted = spawnSync(
      'caddy', ['adapt', '--config', config, '--adapter', 'caddyfile'], { encoding: 'utf8', env },
    );
    expect(adapted.status, adapted.stderr).toBe(0);
    type Adapted = { apps: { http: { servers: Record<string, Record<string, unknown>> } } };
    const servers = Object.values((JSON.parse(adapted.stdout) as Adapted).apps.http.servers);
    expect(servers.length).toBeGreaterThan(0);
    for (const server of servers) {
      expect(server).toMatchObject({ read_header_timeout: 10e9, idle_timeout: 120e9, max_header_bytes: 32 * 1024 });
    }
  });

  it('closes a connection whose request head never completes, without answering', async () => {
    const port = Number(new URL(caddy.url).port);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => { received += chunk.toString(); });
    await new Promise<void>((r) => socket.once('connect', r));
    socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a');
    // Caddy ends the connection once read_header passes; a proxy without the timeout would hold it open and the
    // test would fail on vitest's timeout instead.
    await new Promise<void>((r) => socket.once('close', () => r()));
    expect(received).not.toMatch(/^HTTP\/1\.1 2/);
  }, 20_000);
});
