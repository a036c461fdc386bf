/**
 * The Connections page's words for protocols, authentication modes and row statuses, and the copy-paste
 * examples of each protocol (an AG-UI HttpAgent snippet, an MCP client configuration, a curl for a webhook).
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication
 * (UI labels); docs/decisions.md D10 (Connections).
 */
import type { ConnectionView } from '../../../../../core/connection/api-views.ts';

/** Protocol labels. */
export const protocolLabel: Record<ConnectionView['protocol'], string> = { agui: 'AG-UI', mcp: 'MCP', webhook: 'Webhook' };

/** Authentication mode labels (spec § Incoming connection authentication). */
export const authLabel: Record<ConnectionView['auth'], string> = { public: 'None: anyone with the URL', bearer: 'Endpoint token', oidc: 'OIDC' };

/** The modes a protocol allows: MCP has no public mode. */
export function authModesOf(protocol: ConnectionView['protocol']): ConnectionView['auth'][] {
  return protocol === 'mcp' ? ['bearer', 'oidc'] : ['public', 'bearer', 'oidc'];
}

/** What to put where a credential goes: the token just shown, else a placeholder naming where one comes from. */
export function credentialOf(connection: Pick<ConnectionView, 'auth'>, token: string | undefined): string | undefined {
  if (connection.auth === 'public') return undefined;
  if (token) return token;
  return connection.auth === 'bearer' ? '<endpoint token>' : '<access token from your OIDC provider>';
}

/** A copy-paste example for `connection` (the token when just shown, else a placeholder). */
export function exampleOf(connection: Pick<ConnectionView, 'identifier' | 'protocol' | 'auth' | 'url'>, token?: string): { title: string; text: string } {
  const credential = credentialOf(connection, token);
  const url = connection.url;
  if (connection.protocol === 'agui') {
    const headers = credential ? `,\n  headers: { Authorization: 'Bearer ${credential}' },` : ',';
    return {
      title: 'AG-UI client (@ag-ui/client HttpAgent)',
      text: `import { HttpAgent } from '@ag-ui/client';

const agent = new HttpAgent({
  url: '${url}'${headers}
});
agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Hello' });
const { newMessages } = await agent.runAgent();
console.log(newMessages);
`,
    };
  }
  if (connection.protocol === 'mcp') {
    const server: Record<string, unknown> = { type: 'http', url, ...(credential ? { headers: { Authorization: `Bearer ${credential}` } } : {}) };
    return { title: 'MCP client configuration (mcpServers)', text: `${JSON.stringify({ mcpServers: { [connection.identifier]: server } }, null, 2)}\n` };
  }
  const auth = credential ? ` \\\n  -H 'authorization: Bearer ${credential}'` : '';
  return {
    title: 'Webhook (curl)',
    text: `curl -X POST '${url}'${auth} \\\n  -H 'content-type: application/json' \\\n  -d '{"event": "example", "id": "123"}'\n`,
  };
}
