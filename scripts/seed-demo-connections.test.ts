/**
 * The pure parts of the demo connections' seeding: the web app's origins a start adds to the AG-UI connection,
 * endpoint URLs moved onto scripts/start's own address, and the banner line of each endpoint (a bearer endpoint
 * names the command that issues its token, never a token).
 * Source: scripts/seed-demo-connections.ts; README.md § Two commands (the banner's demo endpoints).
 */
import { describe, expect, it } from 'vitest';
import { demoConnections, demoEndpointLine, onOrigin, webAppOrigins } from './seed-demo-connections.ts';

describe('demo connections', () => {
  it('registers one connection per endpoint kind: chat (agui, public), tools (mcp, bearer), hooks (webhook, public)', () => {
    expect(demoConnections.map((c) => [c.identifier, c.protocol, c.auth])).toEqual([['chat', 'agui', 'public'], ['tools', 'mcp', 'bearer'], ['hooks', 'webhook', 'public']]);
  });

  it('lists the web app\'s origin, and localhost beside 127.0.0.1', () => {
    expect(webAppOrigins('http://127.0.0.1:8080')).toEqual(['http://127.0.0.1:8080', 'http://localhost:8080']);
    expect(webAppOrigins('http://192.168.1.20:9000/')).toEqual(['http://192.168.1.20:9000']);
  });

  it('moves an endpoint URL built on APP_BASE_URL onto the address scripts/start serves', () => {
    expect(onOrigin('http://localhost:5173/api/webhooks/Abc-123_x', 'http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/api/webhooks/Abc-123_x');
  });

  it('prints each endpoint with how a caller is admitted, and for bearer the command that issues a token', () => {
    expect(demoEndpointLine({ identifier: 'hooks', protocol: 'webhook', auth: 'public', url: 'http://127.0.0.1:8080/api/webhooks/a' }))
      .toBe('Demo agent webhook (hooks):   http://127.0.0.1:8080/api/webhooks/a  (auth public)');
    expect(demoEndpointLine({ identifier: 'tools', protocol: 'mcp', auth: 'bearer', url: 'http://127.0.0.1:8080/api/mcp/b' }))
      .toBe('Demo agent MCP tool (tools):  http://127.0.0.1:8080/api/mcp/b  (needs a token: npx cairn connection regenerate-token --agent flights-analyst --env main --id tools)');
  });
});
