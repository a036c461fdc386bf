/**
 * Asking for an environment operation (Publish, Restore, Discard, Promote) and following it until it ends: the
 * queued operation is asked about every second (./queries.ts useOperation); once it ended, everything of the agent
 * is read again. The Overview's Operations and the Design tab's Publish share it.
 *
 * Source: spec/platform-service.md (What the service does); docs/decisions.md D10 (Agents and environments).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { OperationAnswer } from '../../../../../core/agent/api-views.ts';
import { api } from '../../../api/client.ts';
import { agentKeys, environmentPath, useOperation } from './queries.ts';

/** An operation to ask for. */
export type OperationAction =
  | { kind: 'publish' } | { kind: 'restore'; buildId: string } | { kind: 'discard' } | { kind: 'promote'; to: string };

/**
 * The operations of `env` of `agent`: `ask` queues one (`onQueued` runs once it is queued); `op` is the last one
 * asked from here as it stands now; `running` while it is being asked for, queued or running.
 */
export function useEnvironmentOperation(agent: string, env: string, onQueued?: () => void) {
  const client = useQueryClient();
  const [opId, setOpId] = useState<string | null>(null);
  const ask = useMutation({
    mutationFn: (action: OperationAction) => {
      const body = action.kind === 'restore' ? { buildId: action.buildId }
        : action.kind === 'promote' ? { to: action.to } : undefined;
      return api<OperationAnswer>(environmentPath(agent, env, `/${action.kind}`), { method: 'POST', body })
        .then((r) => r.operation);
    },
    onSuccess: (op) => { setOpId(op.id); onQueued?.(); },
  });
  const operation = useOperation(agent, opId);
  const op = operation.data;
  const running = ask.isPending || (opId !== null && (!op || op.status === 'queued' || op.status === 'running'));
  const ended = op?.status === 'succeeded' || op?.status === 'failed';
  useEffect(() => {
    if (ended) void client.invalidateQueries({ queryKey: agentKeys.agent(agent) });
  }, [ended, agent, client]);
  return { ask, opId, operation, op, running, ended };
}
