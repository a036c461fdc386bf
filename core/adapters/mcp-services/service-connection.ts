/**
 * One kept MCP client connection to one configured service (Streamable HTTP, `Authorization: Bearer <token>`):
 * opened on first use, reused by every discovery and call, and opened again once when a request over it fails
 * at the transport (refused, reset, closed), never after a timeout, a cancellation or a JSON-RPC error.
 * A call that is cancelled or times out also ends its HTTP request (the SDK alone would only send
 * `notifications/cancelled` and leave the request open).
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceConfig } from '../../config/config-model.ts';
import { PLATFORM_CALLER_HEADER } from '../../ports/tool-catalog.ts';

/** Options of {@link openServiceConnection}. */
export interface ServiceConnectionOptions {
  /** Longest wait for the connection's initialize and for each tools/list page, in ms. */
  discoveryTimeoutMs: number;
  /** The fetch the transport uses; default the global fetch. */
  fetch?: typeof fetch;
  /** The client name the service sees. Default `cairn`. */
  clientName?: string;
}

/** Options of one {@link ServiceConnection.callTool}. */
export interface ServiceCallOptions {
  signal?: AbortSignal;
  /** `<orgId>/<agentId>` sent as PLATFORM_CALLER_HEADER on the tools/call request (the service's rate key). */
  caller?: string;
  /** Longest wait for the answer, in ms. */
  timeoutMs: number;
}

/** The tool-protocol requests the catalog makes to one service. */
export interface ServiceConnection {
  /**
   * Every tool the service offers, following `nextCursor` pages.
   * @throws what the SDK client throws (McpError, StreamableHTTPError, fetch errors)
   */
  listTools(): Promise<Tool[]>;
  /**
   * One tools/call; a tool that failed comes back with `isError` (not thrown).
   * @throws what the SDK client throws, or the signal's reason when aborted
   */
  callTool(name: string, input: unknown, options: ServiceCallOptions): Promise<CallToolResult>;
  /** Closes the kept connection (a later request opens a new one). */
  close(): Promise<void>;
}

/** The most tools/list pages followed (a service that pages forever is cut off). */
const MAX_PAGES = 100;

/**
 * A connection to `service` (nothing is opened until the first request).
 *
 * Source: spec/platform-service.md § Rules 15
 */
export function openServiceConnection(service: ServiceConfig, options: ServiceConnectionOptions): ServiceConnection {
  const callSignal = new AsyncLocalStorage<CallContext>();
  const callers = new AsyncLocalStorage<string | undefined>();
  const baseFetch: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const fetchOf = callerFetch(abortableFetch(baseFetch, callSignal), callers);
  let current: Promise<Client> | undefined;
  const connected = (): Promise<Client> => {
    current ??= connect(service, { ...options, fetch: fetchOf }).catch((error: unknown) => {
      current = undefined;
      throw error;
    });
    return current;
  };
  /** Closes `client` if it is still the kept one (a concurrent request may have replaced it already). */
  const drop = async (client = current): Promise<void> => {
    if (client === undefined || client !== current) return;
    current = undefined;
    await client.then((c) => c.close()).catch(() => undefined);
  };
  /** Runs `request` on the kept client; after a transport failure, once more on a new connection. */
  const withReconnect = async <T>(request: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const used = connected();
    try {
      return await request(await used);
    } catch (error) {
      // A refusal over the service's rate is an answer, not a broken connection: reconnecting would only spend more.
      const overRate = error instanceof StreamableHTTPError && error.code === 429;
      if (error instanceof McpError || signal?.aborted || overRate) throw error;
      await drop(used);
      return request(await connected());
    }
  };
  return {
    listTools: () => withReconnect((client) => listAllTools(client, options.discoveryTimeoutMs)),
    // The call's context (its signal, its caller) covers a reconnect made for it too: the caller's header goes on
    // the new connection's requests as well.
    callTool: (name, input, call) =>
      callers.run(call.caller, () =>
        withReconnect(async (client) => {
          // The call's trace context (the client span of ./service-call.ts) as the MCP conventions carry it.
          const params = { name, arguments: input as Record<string, unknown>, ...traceMeta() };
          // Ends the HTTP request too when the call fails (a timeout): the SDK alone would leave it open.
          const ended = new AbortController();
          const signal = call.signal ? AbortSignal.any([call.signal, ended.signal]) : ended.signal;
          try {
            const request = () => client.callTool(params, undefined, { signal: call.signal, timeout: call.timeoutMs });
            return await callSignal.run({ signal }, request) as CallToolResult;
          } catch (error) {
            ended.abort(error);
            throw error;
          }
        }, call.signal)),
    close: () => drop(),
  };
}

/** What a tools/call's async context carries to the transport's fetch. */
interface CallContext {
  signal: AbortSignal;
}

/**
 * `base`, except that a tools/call request sent while `callSignal` holds a call's signal is aborted with it (the
 * SDK gives its transport no per-request signal; the call's async context carries it to the fetch).
 */
function abortableFetch(base: typeof fetch, callSignal: AsyncLocalStorage<CallContext>): typeof fetch {
  return (input, init) => {
    const signal = callSignal.getStore()?.signal;
    if (signal === undefined || typeof init?.body !== 'string' || !init.body.includes('"method":"tools/call"')) {
      return base(input, init);
    }
    return base(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal });
  };
}

/**
 * `base`, except that every request made in a call's async context names the call's caller in
 * PLATFORM_CALLER_HEADER (`<orgId>/<agentId>`): the service counts its rate per caller rather than per address.
 *
 * Source: docs/decisions.md D17 § 6 (one tenant's agent cannot deny another's tools)
 */
function callerFetch(base: typeof fetch, callers: AsyncLocalStorage<string | undefined>): typeof fetch {
  return (input, init) => {
    const caller = callers.getStore();
    if (caller === undefined) return base(input, init);
    const headers = new Headers(init?.headers);
    headers.set(PLATFORM_CALLER_HEADER, caller);
    return base(input, { ...init, headers });
  };
}

async function connect(
  service: ServiceConfig,
  options: ServiceConnectionOptions & { fetch: typeof fetch },
): Promise<Client> {
  const client = new Client({ name: options.clientName ?? 'cairn', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(service.endpoint), {
    requestInit: { headers: { Authorization: `Bearer ${service.token}` } },
    fetch: options.fetch,
  });
  try {
    await client.connect(transport, { timeout: options.discoveryTimeoutMs });
    return client;
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/**
 * `{ _meta: { traceparent, tracestate } }` of the active context, as the MCP semantic conventions carry a call's
 * trace context (`params._meta`); nothing when no span is recording. Source: docs/decisions.md D25 § 1.
 */
function traceMeta(): { _meta?: Record<string, string> } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return typeof carrier.traceparent === 'string' ? { _meta: carrier } : {};
}
