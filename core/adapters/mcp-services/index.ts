/**
 * The configured services as one ToolCatalog (MCP over Streamable HTTP). A process builds it from the config's
 * services list, calls `warm()` at start without waiting, and `close()` at stop.
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
export { createServiceCatalog, type ServiceCatalog, type ServiceCatalogOptions } from './service-catalog.ts';
export type { CatalogTool, ToolCallOptions, ToolCallResult, ToolCatalog } from '../../ports/tool-catalog.ts';
