import { describe, expect, it } from 'vitest';
import { bodyLimitFor, isJsonType, refuseOversizedBody, requireJsonBody } from './body-limits.ts';

describe('body limits', () => {
  it('gives 256 KiB under webhooks and callbacks, 1 MiB for JSON, 20 MiB for uploads', () => {
    expect(bodyLimitFor('/api/webhooks/x', 'application/json')).toBe(256 * 1024);
    expect(bodyLimitFor('/api/callbacks/x', 'application/octet-stream')).toBe(256 * 1024);
    expect(bodyLimitFor('/api/agents', 'application/json; charset=utf-8')).toBe(1024 * 1024);
    expect(bodyLimitFor('/api/files', 'application/octet-stream')).toBe(20 * 1024 * 1024);
  });
  it('refuses a declared length over the limit with 413 naming it', () => {
    const request = new Request('http://x/api/webhooks/t', { method: 'POST', headers: { 'content-length': String(256 * 1024 + 1) } });
    expect(() => refuseOversizedBody(request, '/api/webhooks/t')).toThrow(expect.objectContaining({ code: 'payload_too_large', status: 413, message: 'The body is larger than 256 KiB.' }));
  });
  it('recognises JSON media types and refuses other bodies on JSON routes', () => {
    expect(['application/json', 'Application/JSON;charset=utf-8', 'application/merge-patch+json'].every(isJsonType)).toBe(true);
    expect(['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/jsonp', ''].some(isJsonType)).toBe(false);
    const form = new Request('http://x/api/agents', { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(() => requireJsonBody(form)).toThrow(expect.objectContaining({ code: 'unsupported_media_type', status: 415 }));
    expect(() => requireJsonBody(new Request('http://x/api/agents', { method: 'POST' }))).not.toThrow();
  });
});
