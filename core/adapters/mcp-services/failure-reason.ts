/**
 * Short, secret-free reasons for a service that failed: what an operator line or a tool error result says about
 * an MCP request that did not get an answer (refused connection, HTTP status, timeout).
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Connection error codes (Node's and Bun's spellings) and what they mean. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ConnectionRefused: 'connection refused',
  ECONNRESET: 'connection reset',
  ConnectionClosed: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** What an HTTP status from a tool endpoint usually means. */
const HTTP_HINTS: Record<number, string> = {
  401: 'the service refused the configured token',
  403: 'the token may not use this endpoint',
  404: 'no tool endpoint at this address',
};

/**
 * One short reason for `error`, with every occurrence of `secret` replaced by `[token]`.
 * @param error - what the MCP SDK client or fetch threw
 * @param secret - the service token (never shown)
 * @returns e.g. `connection refused`, `HTTP 401 (the service refused the configured token)`, `no answer within 10 s`
 */
export function failureReason(error: unknown, secret: string): string {
  return scrub(describe(error).slice(0, 300), secret);
}

function describe(error: unknown): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    const timeout = (error.data as { timeout?: number } | undefined)?.timeout;
    return timeout === undefined ? 'no answer in time' : `no answer within ${seconds(timeout)}`;
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    const hint = HTTP_HINTS[error.code];
    return hint ? `HTTP ${error.code} (${hint})` : `HTTP ${error.code}`;
  }
  const network = networkCode(error);
  if (network !== undefined) return NETWORK_CODES[network] ?? network;
  return error instanceof Error ? error.message : String(error);
}

/** The first error code along the `cause` chain that names a connection failure. */
function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Object && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (code in NETWORK_CODES || /^E[A-Z]+$/.test(code))) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `10 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function scrub(text: string, secret: string): string {
  return secret.length > 0 ? text.split(secret).join('[token]') : text;
}
