/**
 * The stateless MCP Streamable HTTP wire, now shared with the API's MCP endpoint: see
 * core/adapters/mcp-wire/json-rpc.ts.
 */
export * from '../../core/adapters/mcp-wire/json-rpc.ts';
