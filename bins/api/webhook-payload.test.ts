import { describe, expect, it } from 'vitest';
import { deliveryIdOf, webhookPayload } from './webhook-payload.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('the webhook firing payload', () => {
  it('holds the method, the three headers, the query and the body parsed when JSON', () => {
    const request = new Request('http://localhost/api/webhooks/x?a=1&b=2&b=3', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'GitHub-Hookshot/1', 'x-request-id': 'r-1', authorization: 'Bearer secret' } });
    expect(webhookPayload(request, bytes('{"action":"opened"}'))).toEqual({
      method: 'POST', contentType: 'application/json; charset=utf-8', userAgent: 'GitHub-Hookshot/1', requestId: 'r-1', query: { a: '1', b: ['2', '3'] }, body: { action: 'opened' },
    });
  });

  it('keeps a body that is not JSON (or not valid JSON) as text, and never carries other headers', () => {
    const form = new Request('http://localhost/api/webhooks/x', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'c=1' } });
    const payload = webhookPayload(form, bytes('a=1&b=2'));
    expect(payload.body).toBe('a=1&b=2');
    expect(JSON.stringify(payload)).not.toContain('c=1');
    const broken = new Request('http://localhost/api/webhooks/x', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(webhookPayload(broken, bytes('{not json')).body).toBe('{not json');
  });

  it('takes the delivery id from X-Delivery-Id, else the digest of the body', () => {
    const withId = new Request('http://localhost/', { method: 'POST', headers: { 'x-delivery-id': 'd-42' } });
    expect(deliveryIdOf(withId, bytes('a'))).toBe('d-42');
    const without = new Request('http://localhost/', { method: 'POST' });
    expect(deliveryIdOf(without, bytes('a'))).toBe(deliveryIdOf(without, bytes('a')));
    expect(deliveryIdOf(without, bytes('a'))).not.toBe(deliveryIdOf(without, bytes('b')));
    const odd = new Request('http://localhost/', { method: 'POST', headers: { 'x-delivery-id': 'x'.repeat(201) } });
    expect(deliveryIdOf(odd, bytes('a'))).toMatch(/^sha256-[0-9a-f]{64}$/);
  });
});
