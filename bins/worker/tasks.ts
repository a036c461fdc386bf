/**
 * The tasks a worker can run, by name. A task gets its JSON payload and the broker (its only way to
 * platform data) and resolves with a JSON result; a PlatformError it throws fails the run with its code.
 * Add a task here to make it runnable (`WorkerLauncher.run({ task: '<name>', … })`).
 *
 * Source: ../shared/spec/platform-service.md § Rules 6 (turn workers and call workers).
 */
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { runHook } from './hook.ts';

/**
 * A worker task.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export type WorkerTask = (payload: unknown, broker: WorkerBroker) => Promise<unknown>;

/**
 * Every task of the worker program. `echo` answers its payload (start-up measurements and health
 * checks); `hook` runs an author hook script in QuickJS (see ./hook.ts).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export const workerTasks: Record<string, WorkerTask> = {
  echo: async (payload) => payload,
  hook: runHook,
};
