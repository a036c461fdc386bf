/**
 * Imported first by the playground's MCP client (mcp.ts): the MCP SDK builds its zod schemas while it is
 * being imported, and zod's first object schema probes `new Function('')` once. The CSP (`script-src 'self'`)
 * refuses it and reports a violation; jitless skips the probe and the code generation it guards. A module's
 * own statements run only after all its imports, so this must be a module of its own, imported before the SDK.
 */
import { config } from 'zod/v4';

config({ jitless: true });
