import { describe, expect, it } from 'vitest';
import { isCrossSiteRequest, refuseCrossSite } from './cross-site.ts';

const post = (headers: Record<string, string>, host = 'app.cairn.test') =>
  new Request(`http://${host}/api/agents`, { method: 'POST', headers: { host, ...headers } });

describe('isCrossSiteRequest', () => {
  const policy = { allowedOrigins: ['https://app.cairn.test/', 'http://localhost:5173'] };

  it('passes the platform\'s origins, its own host names on the request\'s own host, '
    + 'and clients that are not browsers', () => {
    expect(isCrossSiteRequest(post({ origin: 'https://app.cairn.test', 'sec-fetch-site': 'cross-site' }), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://app.cairn.test:8080' }, 'app.cairn.test:8080'), policy))
      .toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://localhost:5173' }), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://localhost:8080' }, 'localhost:8080'), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://127.0.0.1:8080' }, '127.0.0.1:8080'), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://[::1]:8080' }, '[::1]:8080'), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://192.168.1.5:8080' }, '192.168.1.5:8080'), policy)).toBe(false);
    expect(isCrossSiteRequest(post({}), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ 'sec-fetch-site': 'same-origin' }), policy)).toBe(false);
  });

  it('refuses other origins, opaque and malformed origins, and browser-marked requests without an origin', () => {
    const pages: Record<string, string>[] = [{ origin: 'https://evil.test' }, { origin: 'null' }, { origin: 'not a url' }, { origin: 'http://localhost:5174' },
      { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of pages) {
      expect(isCrossSiteRequest(post(headers), policy)).toBe(true);
    }
  });

  it('refuses an Origin equal to a Host that is not one of the platform\'s names (a DNS-rebinding page)', () => {
    const rebound = 'rebind.attacker.example:8080';
    expect(isCrossSiteRequest(post({ origin: `http://${rebound}` }, rebound), policy)).toBe(true);
    expect(isCrossSiteRequest(post({ origin: 'http://127.0.0.1:9999' }, '127.0.0.1:8080'), policy)).toBe(true);
  });

  it('believes X-Forwarded-Host only when told the peer is a trusted proxy', () => {
    const viaProxy = post({ origin: 'https://public.test', 'x-forwarded-host': 'public.test' }, '127.0.0.1:3001');
    const withPublic = { allowedOrigins: ['https://public.test:8443'] };
    expect(isCrossSiteRequest(viaProxy, withPublic)).toBe(true);
    expect(isCrossSiteRequest(viaProxy, { ...withPublic, forwardedHostTrusted: true })).toBe(false);
    expect(isCrossSiteRequest(viaProxy, { forwardedHostTrusted: true })).toBe(true);
  });
});

describe('refuseCrossSite', () => {
  it('throws cross_site_request 403 for state-changing requests only', () => {
    expect(() => refuseCrossSite(post({ origin: 'https://evil.test' }))).toThrow(expect.objectContaining({ code: 'cross_site_request', status: 403 }));
    expect(() => refuseCrossSite(new Request('http://app.test/api/agents', { headers: { origin: 'https://evil.test' } }))).not.toThrow();
  });
});
