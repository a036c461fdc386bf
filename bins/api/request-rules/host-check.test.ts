import { describe, expect, it } from 'vitest';
import { refuseForeignHost, requestHost } from './host-check.ts';

const get = (host: string | undefined, headers: Record<string, string> = {}) =>
  new Request('http://localhost/api/orgs', { headers: { ...(host === undefined ? {} : { host }), ...headers } });
const policy = { allowedOrigins: ['https://cairn.example.com', 'http://localhost:5173'] };

describe('refuseForeignHost', () => {
  it('answers loopback names, IP literals and the configured origins\' hosts, on any port', () => {
    for (const host of ['localhost', 'localhost:8080', '127.0.0.1:1', '[::1]:8080', '10.0.0.5:8080', '[fe80::1]',
      'cairn.example.com', 'CAIRN.example.com:8443']) {
      expect(() => refuseForeignHost(get(host), policy), host).not.toThrow();
    }
  });

  it('refuses any other name with 421 misdirected_request, naming neither the host sent nor a configured one', () => {
    for (const host of ['rebind.attacker.example:8080', 'localhost.attacker.example', '127.0.0.1.attacker.example',
      'example.com', '1.2.3', 'cairn.example.com.attacker.example', 'a:b:c', '']) {
      let caught: unknown;
      try { refuseForeignHost(get(host), policy); } catch (error) { caught = error; }
      expect(caught, host).toMatchObject({ code: 'misdirected_request', status: 421 });
      expect((caught as Error).message).not.toContain('attacker');
      expect((caught as Error).message).not.toContain('cairn.example.com');
    }
  });

  it('reads X-Forwarded-Host only from a trusted proxy, and the URL\'s host when the Host header is absent', () => {
    const forwarded = get('127.0.0.1:3001', { 'x-forwarded-host': 'rebind.attacker.example' });
    expect(() => refuseForeignHost(forwarded, policy)).not.toThrow();
    expect(() => refuseForeignHost(forwarded, { ...policy, forwardedHostTrusted: true }))
      .toThrow(expect.objectContaining({ status: 421 }));
    expect(requestHost(get(undefined))).toBe('localhost');
  });

  it('asks every name a trusted proxy\'s request carries: its Host itself, and each X-Forwarded-Host entry', () => {
    const trusted = { ...policy, forwardedHostTrusted: true };
    for (const [host, forwarded] of [
      ['evil.example', 'localhost'], ['rebind.attacker.example:3001', 'cairn.example.com'],
      ['localhost:3001', 'localhost, rebind.attacker.example'], ['127.0.0.1:3001', 'cairn.example.com,evil.example'],
    ]) {
      expect(() => refuseForeignHost(get(host, { 'x-forwarded-host': forwarded }), trusted), `${host} ${forwarded}`)
        .toThrow(expect.objectContaining({ code: 'misdirected_request', status: 421 }));
    }
    for (const [host, forwarded] of [
      ['127.0.0.1:3001', 'cairn.example.com'], ['cairn.example.com', 'localhost:8080, 10.0.0.5'],
      ['localhost:3001', ''],
    ]) {
      expect(() => refuseForeignHost(get(host, { 'x-forwarded-host': forwarded }), trusted), `${host} ${forwarded}`)
        .not.toThrow();
    }
  });
});
