/**
 * Server state of the Connections tab: the environment's connections with their row status.
 *
 * Source: spec/platform-service.md § Incoming connection; docs/decisions.md D10 (Connections).
 */
import { useQuery } from '@tanstack/react-query';
import type { ConnectionListAnswer } from '../../../../../core/connection/api-views.ts';
import { api } from '../../../api/client.ts';
import { agentKeys, environmentPath } from '../agents/queries.ts';

/** How often the list is asked again while a row is not yet serving, in ms (deployments settle in the background). */
export const connectionsPollMs = 5000;

/** GET …/connections. */
export function useConnections(agent: string, env: string) {
  return useQuery({
    queryKey: agentKeys.connections(agent, env),
    queryFn: () => api<ConnectionListAnswer>(environmentPath(agent, env, '/connections')).then((r) => r.connections),
    refetchInterval: connectionsPollMs,
  });
}
