/**
 * The tasks a worker can run, by name. A task gets its JSON payload and the broker (its only way to
 * platform data) and resolves with a JSON result; a PlatformError it throws fails the run with its code.
 * Add a task here to make it runnable (`WorkerLauncher.run({ task: '<name>', … })`).
 *
 * Source: spec/platform-service.md § Rules 6 (turn workers and call workers).
 */
import { networkInterfaces } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { runHook } from './hook.ts';
import { runCallbackTask, runPollTask, runSubscribeTask } from './service-tasks.ts';
import { runTurnTask } from './turn.ts';

/**
 * What the worker is allowed, as its own runtime reports it: whether the permission model is on, whether
 * it may read or write the root directory, start a process or a thread, and its heap limit in MiB.
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function sandboxFacts(): { permissionModel: boolean; readsRoot: boolean; writesRoot: boolean; childProcess: boolean; workerThreads: boolean; heapLimitMb: number } {
  const permission = (process as { permission?: { has(scope: string, reference?: string): boolean } }).permission;
  return {
    permissionModel: permission !== undefined,
    readsRoot: permission?.has('fs.read', '/') ?? true,
    writesRoot: permission?.has('fs.write', '/') ?? true,
    childProcess: permission?.has('child') ?? true,
    workerThreads: permission?.has('worker') ?? true,
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024),
  };
}

/**
 * Where the worker runs, as it sees it: its process id and its parent's (2 and 1 in its own PID namespace) and its
 * network interfaces (only `lo` in its own network namespace).
 *
 * Source: docs/decisions.md D17 § 3 (the worker sandbox)
 */
export function isolationFacts(): { pid: number; ppid: number; interfaces: string[] } {
  return { pid: process.pid, ppid: process.ppid, interfaces: Object.keys(networkInterfaces()).sort() };
}

/**
 * A worker task.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export type WorkerTask = (payload: unknown, broker: WorkerBroker) => Promise<unknown>;

/**
 * Every task of the worker program. `echo` answers its payload (start-up measurements and health
 * checks); `sandbox` and `isolation` report what the worker is allowed and where it runs; `hook` runs an
 * author hook script in QuickJS (see ./hook.ts); `turn` runs a session's turn
 * (see ./turn.ts); `poll`, `subscribe` and `callback` make a polling or callback trigger's one service call and
 * read its answer (see ./service-tasks.ts).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export const workerTasks: Record<string, WorkerTask> = {
  echo: async (payload) => payload,
  sandbox: async () => sandboxFacts(),
  isolation: async () => isolationFacts(),
  hook: runHook,
  turn: runTurnTask,
  poll: runPollTask,
  subscribe: runSubscribeTask,
  callback: runCallbackTask,
};
