/**
 * The MCP Access page's client configurations: the endpoint addresses of a project and the three
 * ready-to-paste texts carry the spec's shape (the endpoint URL and an Authorization header with the Bearer token).
 */
import { describe, expect, it } from 'vitest';
import { clientConfigurations, endpointsOf } from '../../web/src/pages/semantic/access/client-config.ts';

const token = 'cairn_mcp_abc-DEF_123';

describe('client configurations', () => {
  it('names the production and test endpoints of the project on the origin', () => {
    expect(endpointsOf('https://cairn.example.com/', 'flights')).toEqual({ production: 'https://cairn.example.com/mcp/flights/mcp', test: 'https://cairn.example.com/mcp/flights/test/mcp' });
  });

  it('gives mcpServers JSON with the URL and the Bearer header, a claude mcp add line and a curl tools/list', () => {
    const url = 'https://cairn.example.com/mcp/flights/mcp';
    const [json, claude, curl] = clientConfigurations('flights', url, token);
    expect(JSON.parse(json!.text)).toEqual({ mcpServers: { flights: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } });
    expect(claude!.text).toBe(`claude mcp add --transport http 'flights' '${url}' --header 'Authorization: Bearer ${token}'`);
    expect(curl!.text).toContain(`curl -sS '${url}'`);
    expect(curl!.text).toContain(`-H 'Authorization: Bearer ${token}'`);
    expect(curl!.text).toContain(`-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`);
  });

  it('quotes a single quote in a shell argument', () => {
    const [, claude] = clientConfigurations("it's", 'https://x/mcp/its/mcp', token);
    expect(claude!.text).toContain(`'it'"'"'s'`);
  });
});
