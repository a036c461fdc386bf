/**
 * ToolCatalog port: the tools of the platform's tool collections (each configured service is one collection) and
 * calls into them. The broker side of a worker asks it for the tools a state allows and answers the model's tool
 * calls through it; the adapter (core/adapters/mcp-services) speaks the tool protocol (MCP over HTTP) to each service.
 *
 * Source: spec/platform-service.md § Rules 12, 15; § Config sections named (services); issue 7 § The semantic
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
   * (core/boot/service-owners.ts; issue 17 § 1).
   */
  orgId?: string;
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
  tools(): Promise<CatalogTool[]>;
  /**
   * Calls one tool. A service that cannot be reached, answers with an error or does not answer in time gives
   * `{ isError: true, output: 'The <collection> service could not be reached: …' }` or the service's own error text.
   * @param input - the tool's arguments (an object matching its inputSchema)
   * @throws PlatformError `tool_not_found` (status 404) when no configured collection has this name, or its service
   *   does not offer this tool; `tool_cancelled` when `options.signal` was aborted
   */
  call(collection: string, name: string, input: unknown, options?: ToolCallOptions): Promise<ToolCallResult>;
}
