/**
 * ToolCatalog port: the tools of the platform's tool collections (each configured service is one collection) and
 * calls into them. The broker side of a worker asks it for the tools a state allows and answers the model's tool
 * calls through it; the adapter (core/adapters/mcp-services) speaks the tool protocol (MCP over HTTP) to each service.
 *
 * Source: spec/platform-service.md § Rules 12, 15; § Config sections named (services); docs/decisions.md D7 § The
 * semantic
 * service as a tool collection.
 */

/** One tool a collection offers, as its service described it. */
export interface CatalogTool {
  /** The collection: the service entry's `collection` when given, else its `id` (e.g. `semantic`). */
  collection: string;
  /** The tool's own name in its service (e.g. `execute_query`). */
  name: string;
  /** What the tool does, as the service describes it (empty when it gives none). */
  description: string;
  /** JSON Schema of the tool's input object, as the service gives it. */
  inputSchema: Record<string, unknown>;
  /**
   * True when the service marks the tool `readOnlyHint: true` in its MCP tool annotations (a hint, as the MCP
   * specification says, but the operator chose the service): an evaluation's unmocked call may reach it
   * (core/session/evaluation-reach.ts). Absent: not read-only.
   */
  readOnly?: boolean;
  /** The name the model sees, when not `<collection>__<name>` (the design agent's tools: their own names). */
  modelName?: string;
}

/** What a tool call gave back; a failed tool is a result too (it goes back to the model), never a throw. */
export interface ToolCallResult {
  /**
   * The service's structured content when it gave one, else the text of its content items joined with
   * newlines. When `isError`, a text saying what failed.
   */
  output: unknown;
  /** True when the tool failed, or when its service could not be reached or did not answer in time. */
  isError: boolean;
}

/** Options of {@link ToolCatalog.call}. */
export interface ToolCallOptions {
  /** Aborting it cancels the call: {@link ToolCatalog.call} then rejects with PlatformError `tool_cancelled`. */
  signal?: AbortSignal;
  /**
   * The organization of the agent the call is made for (from the trusted records, never from a worker). A
   * collection whose service belongs to one organization refuses every other, and a call naming none
   * (core/boot/service-owners.ts; docs/decisions.md D17 § 1).
   */
  orgId?: string;
  /**
   * The agent the call is made for (from the trusted records). With `orgId` it is sent to the service as
   * {@link PLATFORM_CALLER_HEADER} so a service keys its rate limit per calling organization and agent rather than
   * per address (every call of a dispatcher comes from one address; docs/decisions.md D17 § 6).
   */
  agentId?: string;
  /**
   * The session the call is made in (from the turn record, never from a worker): the design agent's catalog
   * (core/design/design-runtime.ts) finds its chat by it; service collections ignore it.
   */
  sessionId?: string;
  /**
   * The bearer token the call carries instead of the service's own: the organization's credential for the
   * collection, set by the trusted wrapper that resolved it (core/boot/collection-access.ts), never by a worker.
   */
  credential?: string;
}

/** Options of {@link ToolCatalog.tools}. */
export interface ToolListOptions {
  /**
   * The organization whose agent the tools are offered to: a collection it has not connected (and cannot use the
   * deployment's token for) is left out (docs/decisions.md D22 § 4). Absent: every collection's tools.
   */
  orgId?: string;
}

/**
 * The header naming the organization and agent a tools/call is made for: `<orgId>/<agentId>` (each 1–100 of
 * `[A-Za-z0-9_.-]`). semantic-mcp counts its rate limit per token and this caller when it is present.
 *
 * Source: docs/decisions.md D17 § 6 (one tenant's agent cannot deny another's tools)
 */
export const PLATFORM_CALLER_HEADER = 'x-cairn-caller';

/** The header value for `orgId`/`agentId`, or undefined when either is missing or not of the allowed characters. */
export function platformCallerValue(orgId: string | undefined, agentId: string | undefined): string | undefined {
  const part = /^[A-Za-z0-9_.-]{1,100}$/;
  return orgId && agentId && part.test(orgId) && part.test(agentId) ? `${orgId}/${agentId}` : undefined;
}

/**
 * The tools of every collection that is currently offered, and calls into them.
 *
 * Source: spec/platform-service.md § Rules 15
 */
export interface ToolCatalog {
  /**
   * The tools of every collection whose service answered discovery; a service that failed discovery is left out
   * (and retried later by the implementation).
   */
  tools(options?: ToolListOptions): Promise<CatalogTool[]>;
  /**
   * Calls one tool. A service that cannot be reached, answers with an error or does not answer in time gives
   * `{ isError: true, output: 'The <collection> service could not be reached: …' }` or the service's own error text.
   * @param input - the tool's arguments (an object matching its inputSchema)
   * @throws PlatformError `tool_not_found` (status 404) when no configured collection has this name, or its service
   *   does not offer this tool; `tool_cancelled` when `options.signal` was aborted
   */
  call(collection: string, name: string, input: unknown, options?: ToolCallOptions): Promise<ToolCallResult>;
}
