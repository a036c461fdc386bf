import { describe, expect, it } from 'vitest';
import { isCrossSiteRequest, refuseCrossSite } from './cross-site.ts';

const post = (headers: Record<string, string>) => new Request('http://app.test/api/agents', { method: 'POST', headers: { host: 'app.test', ...headers } });

describe('isCrossSiteRequest', () => {
  const policy = { allowedOrigins: ['https://app.cairn.test/', 'http://localhost:5173'] };

  it('passes the request\'s own host, allowed origins and clients that are not browsers', () => {
    expect(isCrossSiteRequest(post({ origin: 'https://app.test' }), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'https://app.cairn.test', 'sec-fetch-site': 'cross-site' }), policy)).toBe(false);
    expect(isCrossSiteRequest(post({ origin: 'http://localhost:5173' }), policy)).toBe(false);
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

  it('believes X-Forwarded-Host only when told the peer is a trusted proxy', () => {
    const viaProxy = post({ origin: 'https://public.test', 'x-forwarded-host': 'public.test' });
    expect(isCrossSiteRequest(viaProxy, {})).toBe(true);
    expect(isCrossSiteRequest(viaProxy, { forwardedHostTrusted: true })).toBe(false);
  });
});

describe('refuseCrossSite', () => {
  it('throws cross_site_request 403 for state-changing requests only', () => {
    expect(() => refuseCrossSite(post({ origin: 'https://evil.test' }))).toThrow(expect.objectContaining({ code: 'cross_site_request', status: 403 }));
    expect(() => refuseCrossSite(new Request('http://app.test/api/agents', { headers: { origin: 'https://evil.test' } }))).not.toThrow();
  });
});
