/**
 * The endpoint addresses of a project and the ready-to-paste client configurations for a new token: a
 * generic `mcpServers` JSON, a `claude mcp add` command line and a curl tools/list request.
 *
 * Source: spec/semantic-query-service.md § Endpoints (POST /mcp/<project-slug>/mcp and …/test/mcp),
 * § Authentication (client configuration shape: the endpoint URL and a header Authorization carrying the
 * Bearer token); docs/decisions.md D9 (MCP Access: a ready-to-paste client configuration).
 */

/** The production endpoint (published build) and the test endpoint (saved source files) of project `slug` at `origin`. */
export function endpointsOf(origin: string, slug: string): { production: string; test: string } {
  const base = `${origin.replace(/\/+$/, '')}/mcp/${encodeURIComponent(slug)}`;
  return { production: `${base}/mcp`, test: `${base}/test/mcp` };
}

/** A configuration a person pastes into an MCP client, with a label saying where it goes. */
export interface ClientConfiguration {
  id: 'json' | 'claude' | 'curl';
  label: string;
  text: string;
}

/** Quotes `value` for a POSIX shell (single quotes). */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The three configurations for `token` on the endpoint `url` of project `slug`: generic `mcpServers` JSON
 * (Claude Desktop, Cursor and most clients that speak streamable HTTP), a `claude mcp add --transport http`
 * line, and a curl tools/list to check the token works.
 */
export function clientConfigurations(slug: string, url: string, token: string): ClientConfiguration[] {
  const json = JSON.stringify({ mcpServers: { [slug]: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  const claude = `claude mcp add --transport http ${shellQuote(slug)} ${shellQuote(url)} --header ${shellQuote(`Authorization: Bearer ${token}`)}`;
  const curl = [
    `curl -sS ${shellQuote(url)} \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${token}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'Accept: application/json, text/event-stream' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
  ].join('\n');
  return [
    { id: 'json', label: 'MCP client (mcpServers JSON)', text: json },
    { id: 'claude', label: 'Claude Code', text: claude },
    { id: 'curl', label: 'curl (list the tools)', text: curl },
  ];
}
