import { describe, expect, it } from 'vitest';
import { checksOwnCallers, isStateChanging, requestPath, signInNeed, userCeilingClass } from './route-classes.ts';

describe('signInNeed', () => {
  it.each([
    ['/api/health', 'none'], ['/api/health/ready', 'none'], ['/api/sign-in-settings', 'none'], ['/api/branding', 'none'],
    ['/api/sign-out', 'none'], ['/api/sign-out/', 'none'], ['/api/webhooks/whk_1', 'none'], ['/api/callbacks/cb_1', 'none'],
    ['/api/oauth2/callback', 'none'], ['/api/oauth2/client-metadata', 'none'], ['/api/decisions/cairn_dl_1', 'none'],
    ['/api/decisions', 'required'], ['/api/decisions/cairn_dl_1/x', 'required'],
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

describe('userCeilingClass (PLATFORM_USER_RATE_PER_MINUTE)', () => {
  it.each([
    ['POST', '/api/sessions', 'always'], ['POST', '/api/sessions/s1/reply', 'always'],
    ['POST', '/api/sessions/s1/decide', 'always'],
    ['POST', '/api/agui/ag_1', 'member-run'],
    ['POST', '/api/agents/a1/environments/main/workflows/w/evaluations', 'always'],
    ['POST', '/api/agents/a1/environments/main/evaluations', 'always'],
    ['POST', '/api/agents/a1/design-agent/turns', 'always'],
    ['POST', '/api/agents/a1/environments/main/design', 'always'], ['GET', '/api/agents/a1/environments/main/design/changes', 'none'],
    ['POST', '/api/agents/design/environments/main/publish', 'none'],
    ['POST', '/api/agents/a1/environments/main/triggers/t/replay', 'always'],
    ['POST', '/api/agents/a1/environments/main/connections/hooks/test', 'always'],
    ['GET', '/api/sessions', 'none'], ['POST', '/api/sessions/s1/cancel', 'none'],
    ['PATCH', '/api/sessions/s1/attributes', 'none'],
    ['POST', '/api/webhooks/whk_1', 'none'], ['POST', '/api/mcp/mcp_1', 'none'], ['OPTIONS', '/api/agui/ag_1', 'none'],
    ['POST', '/api/orgs', 'none'], ['POST', '/api/agents/a1/environments/main/connections', 'none'],
  ])('%s %s → %s', (method, path, kind) => {
    expect(userCeilingClass(method, path)).toBe(kind);
  });
});
