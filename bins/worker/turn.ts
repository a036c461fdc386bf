/**
 * The `turn` task: runs one turn of a session with core/session's engine. Every platform operation (loading the
 * turn, model calls, tool calls, checkpoints, child sessions, settling) is one broker request named `turn.<method>`;
 * hook scripts run in QuickJS inside this worker (./hook.ts).
 *
 * Source: spec/platform-service.md § Rules 6 (turn workers run a workflow turn with its tools, scripts and child
 * sessions); issue 7 § Dispatcher and workers.
 */
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { turnHostMethods, type TurnHost } from '../../core/session/turn-host.ts';
import { runHook } from './hook.ts';

/** A TurnHost whose every method is a broker request `turn.<method>` with the arguments as a JSON array. */
export function brokerTurnHost(broker: WorkerBroker): TurnHost {
  const host = {} as Record<string, unknown>;
  for (const method of turnHostMethods) host[method] = (...args: unknown[]) => broker.request(`turn.${method}`, args);
  return host as unknown as TurnHost;
}

/** Runs the turn named by the payload `{ turnId }`; resolves with its outcome. */
export async function runTurnTask(payload: unknown, broker: WorkerBroker): Promise<unknown> {
  const turnId = (payload as { turnId?: unknown } | null)?.turnId;
  if (typeof turnId !== 'string') throw new PlatformError('invalid_payload', 'The turn task needs {turnId}.');
  const hooks = { run: (source: string, input: unknown, options: { timeoutMs: number }) => runHook({ source, input, timeoutMs: options.timeoutMs }, broker) };
  return runTurn({ host: brokerTurnHost(broker), hooks, now: () => Date.now() }, turnId);
}
