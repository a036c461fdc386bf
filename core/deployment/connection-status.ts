/**
 * The status of each incoming connection's row on the Connections page, from the deployments of its
 * environment: Error (with the first failing deployment's message) when a deployment naming it is in error,
 * Serving (with the count of serving deployments naming it), else Not used.
 *
 * Source: spec/platform-service.md § Incoming connection (row status); docs/decisions.md D8 § Connections.
 */
import type { DeploymentRecord } from './model.ts';

/** A connection row's status: `serving`, `not_used` or `error`. */
export type ConnectionRowStatus = 'serving' | 'not_used' | 'error';

/** What a connection row shows. */
export interface ConnectionDeploymentStatus {
  status: ConnectionRowStatus;
  /** Deployments naming the connection that serve (0 unless some do). */
  servingCount: number;
  /** The message of the first deployment in error naming it (by workflow, trigger), else null. */
  statusMessage: string | null;
}

/** The row status of a connection no deployment names. */
export const notUsed: ConnectionDeploymentStatus = { status: 'not_used', servingCount: 0, statusMessage: null };

/**
 * The row status of every connection the deployments name.
 * @param deployments - the environment's deployment records (any order)
 * @returns identifier → status; a connection not in the map is {@link notUsed}
 */
export function connectionStatuses(
  deployments: Pick<DeploymentRecord, 'connection' | 'status' | 'message' | 'workflow' | 'trigger'>[],
): Map<string, ConnectionDeploymentStatus> {
  const sorted = [...deployments].sort((a, b) =>
    a.workflow.localeCompare(b.workflow) || a.trigger.localeCompare(b.trigger)
  );
  const statuses = new Map<string, ConnectionDeploymentStatus>();
  for (const d of sorted) {
    if (d.connection === null) continue;
    const row = statuses.get(d.connection) ?? { ...notUsed };
    if (d.status === 'serving') row.servingCount += 1;
    if (d.status === 'error' && row.statusMessage === null) row.statusMessage = d.message ?? 'The deployment failed.';
    row.status = row.statusMessage !== null ? 'error' : row.servingCount > 0 ? 'serving' : 'not_used';
    statuses.set(d.connection, row);
  }
  return statuses;
}
