/**
 * The guarded fetch for owner-supplied URLs (core/adapters/outbound/guarded-fetch.ts) against a real TCP server on
 * loopback that counts connections: a loopback, private or plain-http URL is refused before any connection; a name
 * that resolves to loopback at connect time (DNS rebinding) is refused and the server never sees a connection; each
 * refusal names PLATFORM_ALLOW_PRIVATE_URLS. With the variable the same server is reached (the probe works).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, OutboundUrlRefusedError } from '../../core/adapters/outbound/guarded-fetch.ts';
import { isPublicAddress } from '../../core/ports/outbound-url.ts';

let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('{"keys":[]}'));
  server.on('connection', () => { connections += 1; });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

/** The refusal (its cause chain walked) of a fetch, or 'no refusal'. */
async function refusalOf(promise: Promise<Response>): Promise<string> {
  try {
    await promise;
    return 'no refusal';
  } catch (error) {
    for (let at: unknown = error; at instanceof Error; at = at.cause) {
      if (at instanceof OutboundUrlRefusedError) return at.message;
    }
    return `other error: ${String(error)}`;
  }
}

describe('guarded fetch', () => {
  it('refuses loopback, private, link-local and plain-http URLs before connecting, naming the variable', async () => {
    const guarded = createGuardedFetch();
    const urls = [
      `http://127.0.0.1:${port}/`, `https://127.0.0.1:${port}/`, `https://localhost:${port}/`, 'https://10.0.0.1/',
      'https://169.254.169.254/', `https://[::1]:${port}/`, 'http://id.example.com/',
    ];
    for (const url of urls) {
      expect(await refusalOf(guarded(url)), url).toMatch(/PLATFORM_ALLOW_PRIVATE_URLS=true/);
    }
    expect(connections).toBe(0);
  });

  it('checks each resolved address at connect time: a name rebound to loopback never reaches the server', async () => {
    let lookups = 0;
    const answers = [[{ address: '93.184.215.14', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    const guarded = createGuardedFetch({ lookup: async () => answers[Math.min((lookups += 1), 2) - 1] });
    const url = `https://keys.rebind.example:${port}/`;
    // The first answer is public: the guard lets the connection go to that address (it then fails or times out,
    // nothing answers there offline). The next resolves to this machine and is refused.
    expect(await refusalOf(guarded(url, { signal: AbortSignal.timeout(2_000) }))).toMatch(/^other error|^no refusal/);
    expect(await refusalOf(guarded(url))).toMatch(/keys\.rebind\.example.*resolves to a loopback.*PRIVATE_URLS=true/);
    const both = [{ address: '93.184.215.14', family: 4 }, { address: '::ffff:10.0.0.1', family: 6 }];
    const mixed = createGuardedFetch({ lookup: async () => both });
    expect(await refusalOf(mixed(`https://mixed.example:${port}/`))).toMatch(/resolves to a loopback, private/);
    expect(connections).toBe(0);
  });

  it('with PLATFORM_ALLOW_PRIVATE_URLS the same server is reached', async () => {
    const open = createGuardedFetch({ allowPrivate: true });
    expect(await (await open(`http://127.0.0.1:${port}/`)).json()).toEqual({ keys: [] });
    expect(connections).toBe(1);
  });

  it('classifies addresses with ipaddr.js ranges', () => {
    expect(['8.8.8.8', '2606:4700::1111', '93.184.215.14'].every(isPublicAddress)).toBe(true);
    const refused = [
      '127.0.0.2', '10.1.1.1', '172.31.0.1', '192.168.1.1', '169.254.1.1', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1',
      'fd12::1', '::ffff:127.0.0.1', '::', '224.0.0.1', 'not-an-ip',
    ];
    expect(refused.filter(isPublicAddress)).toEqual([]);
  });
});
