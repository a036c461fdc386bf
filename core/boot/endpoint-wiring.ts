/**
 * Wires the endpoint use cases of core/connection to the stores and the turn queue: the MCP calls' dependencies.
 *
 * Source: docs/architecture.md § Life of a turn (1); spec/platform-service.md § Tool-protocol endpoint.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import type { McpCallDeps } from '../connection/mcp-calls.ts';
import type { ChangeWatch } from '../session/change-watch.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import { sessionDeps } from './session-wiring.ts';

/**
 * McpCallDeps over the stores and the turn queue (turns go where every other turn goes: ./session-wiring.ts).
 * @param parts - `waitMs`/`pollMs` as in {@link McpCallDeps}
 */
export function mcpCallDeps(
  parts: SessionStoreDeps & {
    queue: JobQueue | undefined;
    builds: ReturnType<typeof publishedWorkflows>;
    waitMs?: number;
    pollMs?: number;
    watch?: ChangeWatch;
  },
): McpCallDeps {
  const { enqueueTurn } = sessionDeps({ ...parts, workflowOf: parts.builds.workflowOf });
  return { ...parts, enqueueTurn, sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
}
