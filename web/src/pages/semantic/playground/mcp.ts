/**
 * The playground's MCP client: the official MCP SDK client over Streamable HTTP to the project's REAL
 * endpoints (/mcp/<slug>/test/mcp and /mcp/<slug>/mcp, same origin through the front proxy), with the
 * member's playground token as Bearer, so what the playground shows is exactly what an agent gets.
 *
 * The token comes from POST /api/semantic/projects/:slug/playground-token (8 h, one live per member and
 * project); it is kept in memory only, minted again when it nears expiry or an endpoint refuses it (another
 * tab minted a newer one).
 *
 * Source: spec/semantic-query-service.md § What the service does 2, § Endpoints, § Authentication;
 * docs/decisions.md D9.
 */
import './zod-jitless.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { endpointPath, type PlaygroundPlane, type PlaygroundTokenView } from '../../../../../core/semantic/api/playground.ts';
import type { QueryOutput } from '../../../../../core/semantic/tools/tool-definitions.ts';
import { api, projectPath } from '../../../api/client.ts';

/**
 * The SDK's fetch, except the optional GET that opens a server-to-client event stream: the semantic endpoints
 * offer none and answer it 405 (which the SDK takes as "no stream"), so it is answered 405 here without a
 * request (a refused request would also show as an error in the browser's console).
 */
const withoutEventStream = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init);

/** What a tools/call answered, as the agent receives it. */
export interface ToolCallResult {
  /** The text items of `content`, joined by newlines: what the agent reads. */
  text: string;
  structuredContent?: Record<string, unknown>;
  /** True when the tool answered an error (the text says what). */
  isError: boolean;
  /** The whole result object, for the raw view. */
  raw: unknown;
}

/**
 * The query tools' result in `result`: the JSON text of their one text item (the semantic service carries rows once,
 * as text: docs/decisions.md D18 § 3), or structured content of that shape; undefined for any other result or a tool
 * error.
 */
export function queryOutputOf(result: ToolCallResult): QueryOutput | undefined {
  if (result.isError) return undefined;
  let value: unknown = result.structuredContent;
  if (value === undefined) {
    try { value = JSON.parse(result.text); } catch { return undefined; }
  }
  const output = value as Partial<QueryOutput> | null;
  return output && Array.isArray(output.columns) && Array.isArray(output.rows) ? output as QueryOutput : undefined;
}

/**
 * Accepts every tool output as the server sent it. The SDK's default validator (ajv) compiles schemas with
 * `new Function`, which the app's CSP (`script-src 'self'`) forbids; the playground shows the raw result anyway.
 */
const passThroughValidator: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined }),
};

/** Re-mint when less than this remains of a token's life (5 min). */
const renewBeforeMs = 5 * 60_000;

/** Per project: the playground token being minted or held (one request at a time, shared by every call). */
const tokens = new Map<string, Promise<PlaygroundTokenView>>();
/** Per project and plane: the connected client and the token it sends. */
const clients = new Map<string, { token: string; client: Promise<Client> }>();

/** The project's live playground token; mints one when none is held, it nears expiry, or it is `refused`. */
async function playgroundToken(slug: string, refused?: string): Promise<string> {
  const held = tokens.get(slug);
  const current = held ? await held.catch(() => undefined) : undefined;
  if (current && current.token !== refused && Date.parse(current.expiresAt) - Date.now() > renewBeforeMs) return current.token;
  if (tokens.get(slug) !== held) return playgroundToken(slug, refused); // another call started minting meanwhile
  const minting = api<PlaygroundTokenView>(projectPath(slug, '/playground-token'), { method: 'POST', body: {} });
  tokens.set(slug, minting);
  minting.catch(() => { if (tokens.get(slug) === minting) tokens.delete(slug); });
  return (await minting).token;
}

/** A client of the project's `plane` endpoint sending `token` (connected once, reused). */
async function connect(slug: string, plane: PlaygroundPlane, token: string): Promise<Client> {
  const key = `${slug}\n${plane}`;
  const held = clients.get(key);
  if (held && held.token === token) return held.client;
  if (held) void held.client.then((c) => c.close(), () => undefined);
  const client = new Client({ name: 'cairn-playground', version: '1.0.0' }, { jsonSchemaValidator: passThroughValidator });
  const transport = new StreamableHTTPClientTransport(new URL(endpointPath(slug, plane), window.location.origin), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: withoutEventStream });
  const connecting = client.connect(transport).then(() => client);
  clients.set(key, { token, client: connecting });
  connecting.catch(() => { if (clients.get(key)?.client === connecting) clients.delete(key); });
  return connecting;
}

function isUnauthorized(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === 401 || (typeof e?.message === 'string' && /\b401\b|unauthori[sz]ed/i.test(e.message));
}

/**
 * Calls tool `name` with `args` on the project's `plane` endpoint. A tool error is an answer
 * (`isError: true`), not a throw.
 * @throws Error when the endpoint cannot be reached or refuses the request (e.g. 429 rate limit); a 401
 *   (the token was replaced or expired) is retried once with a newly minted token
 */
export async function callTool(slug: string, plane: PlaygroundPlane, name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
  let result: Awaited<ReturnType<Client['callTool']>>;
  const token = await playgroundToken(slug);
  try {
    result = await (await connect(slug, plane, token)).callTool({ name, arguments: args });
  } catch (error) {
    if (!isUnauthorized(error)) throw error;
    result = await (await connect(slug, plane, await playgroundToken(slug, token))).callTool({ name, arguments: args });
  }
  const content = (Array.isArray(result.content) ? result.content : []) as { type: string; text?: string }[];
  return {
    text: content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n'),
    structuredContent: result.structuredContent as Record<string, unknown> | undefined,
    isError: result.isError === true,
    raw: result,
  };
}
