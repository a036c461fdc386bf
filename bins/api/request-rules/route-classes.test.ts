import { describe, expect, it } from 'vitest';
import { checksOwnCallers, isStateChanging, requestPath, signInNeed } from './route-classes.ts';

describe('signInNeed', () => {
  it.each([
    ['/api/health', 'none'], ['/api/health/ready', 'none'], ['/api/sign-in-settings', 'none'], ['/api/branding', 'none'],
    ['/api/sign-out', 'none'], ['/api/sign-out/', 'none'], ['/api/webhooks/whk_1', 'none'], ['/api/callbacks/cb_1', 'none'],
    ['/api/oauth2/callback', 'none'], ['/api/oauth2/client-metadata', 'none'],
    ['/api/agui/ag_1', 'optional'], ['/api/mcp/mcp_1/.well-known/oauth-protected-resource', 'optional'],
    ['/api/healthz', 'required'], ['/api/webhooksx/1', 'required'], ['/api/branding/x', 'required'], ['/api/agents', 'required'],
    ['/api/invitations/link/inv_1', 'required'], ['/', 'required'], ['/api//webhooks/x', 'required'],
  ])('%s → %s', (path, need) => {
    expect(signInNeed(path)).toBe(need);
  });
});

describe('requestPath', () => {
  it('takes the raw path between host and query, as the router does', () => {
    expect(requestPath('http://localhost:3001/api/webhooks/a%2Fb?x=/api/health')).toBe('/api/webhooks/a%2Fb');
    expect(requestPath('https://app.test/api/health')).toBe('/api/health');
  });
});

describe('checksOwnCallers and isStateChanging', () => {
  it('names the endpoints that decide their own callers, and the methods that change things', () => {
    expect(['/api/webhooks/x', '/api/callbacks/x', '/api/agui/x', '/api/mcp/x'].every(checksOwnCallers)).toBe(true);
    expect(checksOwnCallers('/api/sign-out')).toBe(false);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].every(isStateChanging)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isStateChanging)).toBe(false);
  });
});
