import { describe, expect, it } from 'vitest';
import { accessLogLine, redactRequestUri } from './access-log.ts';

const entry = { method: 'GET', uri: '/api/agents', status: 200, durationMs: 3.4, clientAddress: '203.0.113.9' };

describe('accessLogLine', () => {
  it('errors keeps only responses not 2xx or 3xx; all keeps every request; off keeps none', () => {
    expect(accessLogLine('errors', entry)).toBeNull();
    expect(accessLogLine('errors', { ...entry, status: 302 })).toBeNull();
    expect(accessLogLine('errors', { ...entry, status: 404 })).toBe('203.0.113.9 "GET /api/agents" 404 3ms');
    expect(accessLogLine('errors', { ...entry, status: 101 })).not.toBeNull();
    expect(accessLogLine('all', entry)).toBe('203.0.113.9 "GET /api/agents" 200 3ms');
    expect(accessLogLine('off', { ...entry, status: 500 })).toBeNull();
  });
  it('quotes the referer so no header can forge a second line', () => {
    const line = accessLogLine('all', { ...entry, referer: 'https://x.test/"\n1.2.3.4 "GET /fake" 200 1ms' });
    expect(line?.split('\n')).toHaveLength(1);
    expect(line).toContain('referer="https://x.test/\\"\\n1.2.3.4');
  });
});

describe('redactRequestUri', () => {
  it.each([
    ['/api/webhooks/whk_s3cret', '/api/webhooks/[redacted]'],
    ['/api/webhooks/whk_s3cret?source=crm', '/api/webhooks/[redacted]?source=[redacted]'],
    [
      '/api/webhooks/whk_s3cret?access_token=s3cret&source=crm&flag',
      '/api/webhooks/[redacted]?access_token=[redacted]&source=[redacted]&[redacted]',
    ],
    ['/api/callbacks/cb_s3cret?validationToken=s3cret', '/api/callbacks/[redacted]?validationToken=[redacted]'],
    ['/api/mcp/mcp_s3cret?api%5Fkey=s3cret', '/api/mcp/[redacted]?api%5Fkey=[redacted]'],
    ['/api/decisions/cairn_dl_s3cret', '/api/decisions/[redacted]'],
    [
      '/api/sessions?agent=a1&status=running&access_token=s3cret',
      '/api/sessions?agent=a1&status=running&access_token=[redacted]',
    ],
    ['/api/sessions?%E0%A4%A=s3cret', '/api/sessions?[redacted]'],
    ['/api/callbacks/cb_s3cret', '/api/callbacks/[redacted]'],
    ['/api/agui/ag_s3cret', '/api/agui/[redacted]'],
    [
      '/api/mcp/mcp_s3cret/.well-known/oauth-protected-resource',
      '/api/mcp/[redacted]/.well-known/oauth-protected-resource',
    ],
    ['/api/invitations/link/inv_s3cret', '/api/invitations/link/[redacted]'],
    ['/invite/inv_s3cret', '/invite/[redacted]'],
    ['/decide/cairn_dl_s3cret', '/decide/[redacted]'],
    ['//decide//cairn_dl_s3cret?x=1', '//decide//[redacted]?x=[redacted]'],
    ['/decided/cairn_dl_x', '/decided/cairn_dl_x'],
    ['/api//webhooks//whk_s3cret', '/api//webhooks//[redacted]'],
    ['/api/oauth2/callback?code=c0de&state=st4te', '/api/oauth2/callback?[redacted]'],
    ['/api/oauth2/callback', '/api/oauth2/callback'],
    ['/api/oauth2/client-metadata?x=1', '/api/oauth2/client-metadata?x=1'],
    ['/api/agents/webhooks/a1', '/api/agents/webhooks/a1'],
    ['https://app.test/invite/inv_s3cret?x=1#frag', 'https://app.test/invite/[redacted]?x=[redacted]#frag'],
    [
      'https://app.test/api/oauth2/callback?code=c0de#state=x',
      'https://app.test/api/oauth2/callback?[redacted]#[redacted]',
    ],
  ])('%s → %s', (uri, redacted) => {
    expect(redactRequestUri(uri)).toBe(redacted);
  });
  it('redacts a Referer naming a token path in the line', () => {
    const line = accessLogLine('all', {
      ...entry,
      uri: '/api/invitations/link/inv_s3cret',
      referer: 'https://app.test/invite/inv_s3cret',
    });
    expect(line).toBe(
      '203.0.113.9 "GET /api/invitations/link/[redacted]" 200 3ms referer="https://app.test/invite/[redacted]"',
    );
    expect(line).not.toContain('s3cret');
  });
  it("redacts a decision link's page in the Referer of its API calls", () => {
    const line = accessLogLine('all', {
      ...entry,
      uri: '/api/decisions/cairn_dl_s3cret',
      referer: 'https://app.test/decide/cairn_dl_s3cret',
    });
    expect(line).toBe(
      '203.0.113.9 "GET /api/decisions/[redacted]" 200 3ms referer="https://app.test/decide/[redacted]"',
    );
    expect(line).not.toContain('s3cret');
  });
});
