/**
 * The `turn` task: runs one turn of a session with core/session's engine. Every platform operation (loading the
 * turn, model calls, tool calls, checkpoints, child sessions, settling) is one broker request named `turn.<method>`;
 * hook scripts run in QuickJS inside this worker (./hook.ts).
 *
 * Source: spec/platform-service.md § Rules 6 (turn workers run a workflow turn with its tools, scripts and child
 * sessions); docs/decisions.md D7 § Dispatcher and workers.
 */
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { hookOperationViolation } from '../../core/session/broker-call-rules.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { type TurnContext, turnHostMethods, type TurnHost } from '../../core/session/turn-host.ts';
import { runHook } from './hook.ts';

/** A TurnHost whose every method is a broker request `turn.<method>` with the arguments as a JSON array. */
export function brokerTurnHost(broker: WorkerBroker): TurnHost {
  const host = {} as Record<string, unknown>;
  for (const method of turnHostMethods) host[method] = (...args: unknown[]) => broker.request(`turn.${method}`, args);
  return host as unknown as TurnHost;
}

/**
 * The broker a turn's hook scripts get: no operations at all (a hook reads its input and returns its value), so a
 * script's `platform.call` never reaches the turn's channel. Source: docs/decisions.md D17 § 4.
 */
export const hookBroker: WorkerBroker = {
  request: async (op) => {
    throw new PlatformError('operation_refused', hookOperationViolation(op).message);
  },
};

/**
 * Runs the turn named by the payload `{ turnId, context? }` (`context`: the turn as the broker's `loadTurn` gives it,
 * sent with the job so the worker need not ask for it); resolves with its outcome. Its hooks get {@link hookBroker}.
 */
export async function runTurnTask(payload: unknown, broker: WorkerBroker): Promise<unknown> {
  const { turnId, context } = (payload ?? {}) as { turnId?: unknown; context?: TurnContext };
  if (typeof turnId !== 'string') throw new PlatformError('invalid_payload', 'The turn task needs {turnId}.');
  // No operations, but the hook's deadline is still announced on the turn's channel (the launcher enforces it).
  const hookDeadline = broker.hookDeadline?.bind(broker);
  const hooksBroker: WorkerBroker = hookDeadline ? { ...hookBroker, hookDeadline } : hookBroker;
  const hooks = {
    run: (source: string, input: unknown, options: { timeoutMs: number }) =>
      runHook({ source, input, timeoutMs: options.timeoutMs }, hooksBroker),
  };
  const sent = context !== null && typeof context === 'object' ? context : undefined;
  return runTurn({ host: brokerTurnHost(broker), hooks, now: () => Date.now() }, turnId, sent);
}
