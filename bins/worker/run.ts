/**
 * The worker program's body: refuses to start holding any variable outside the worker allowlist, reads
 * its job from the channel, runs the named task and answers once. Permission refusals anywhere (inside a
 * task, an uncaught exception or an unhandled rejection) are reported on the channel by permission name.
 * Standard output is the channel: console output goes to standard error.
 *
 * Source: spec/platform-service.md § Rules 6, 8; § Deployment settings (a worker reads none …
 * and refuses to start holding anything else); § Operational log lines ([worker]).
 */
import { foreignWorkerVariables, WORKER_ENVIRONMENT_VARIABLES } from '../../core/config/worker-environment.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { REFUSED_TO_START_EXIT_CODE, refusedPermission, type WireError } from '../../core/adapters/worker/protocol.ts';
import { WorkerChannel, type WorkerIo } from './channel.ts';
import type { WorkerTask } from './tasks.ts';

let current: WorkerChannel | undefined;

/**
 * Reports `error` on the channel when it is a permission refusal; for a task that catches errors itself.
 * @returns true when it was one
 *
 * Source: spec/platform-service.md § Operational log lines ([worker] refused <operation>)
 */
export function reportRefusal(error: unknown): boolean {
  const permission = refusedPermission(error);
  if (permission !== undefined) current?.denied(permission);
  return permission !== undefined;
}

/**
 * Options of {@link runWorker}: the task registry, the process's environment (checked, never read for
 * settings) and the channel's streams.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export interface RunWorkerOptions {
  tasks: Record<string, WorkerTask>;
  env: Record<string, string | undefined>;
  io: WorkerIo;
}

/**
 * Runs the worker: exits with {@link REFUSED_TO_START_EXIT_CODE} and a line on standard error naming the
 * foreign variables (never a value) when the environment holds any; otherwise answers the job. `PWD` naming its
 * own working directory (bubblewrap sets it) is removed from `env` first.
 *
 * Source: spec/platform-service.md § Deployment settings (a worker reads none)
 */
export function runWorker({ tasks, env, io }: RunWorkerOptions): void {
  // The sandbox (bubblewrap) sets PWD to the working directory it enters: that one is dropped, never checked.
  if (env.PWD !== undefined && env.PWD === process.cwd()) delete env.PWD;
  const foreign = foreignWorkerVariables(env);
  if (foreign.length > 0) {
    process.stderr.write(`worker refused to start: its environment holds ${foreign.join(', ')}; a worker holds only ${WORKER_ENVIRONMENT_VARIABLES.join(', ')}. Start it through the worker launcher.\n`);
    io.exit(REFUSED_TO_START_EXIT_CODE);
    return;
  }
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const channel = new WorkerChannel(io);
  current = channel;
  const failWith = (error: unknown): void => {
    reportRefusal(error);
    channel.fail(wireError(error));
  };
  process.on('uncaughtException', failWith);
  process.on('unhandledRejection', failWith);
  void channel.job.then(async ({ task, payload }) => {
    const run = Object.hasOwn(tasks, task) ? tasks[task] : undefined;
    if (!run) return channel.fail({ code: 'worker_task_unknown', message: `the worker has no task "${task}" (known: ${Object.keys(tasks).join(', ')})` });
    try {
      channel.finish(await run(payload, channel));
    } catch (error) {
      failWith(error);
    }
  });
}

/** The failure as it crosses the channel: a PlatformError's code and message, else a generic one. */
function wireError(error: unknown): WireError {
  const permission = refusedPermission(error);
  if (permission !== undefined) {
    return {
      code: 'worker_permission_refused',
      message: `the worker was refused ${permission}: a worker reads only the application files and its own directory, writes only that directory, and starts no process, thread or native addon`,
    };
  }
  if (isPlatformError(error)) return { code: error.code, message: error.message };
  const name = error instanceof Error ? error.name : 'a non-error value';
  return { code: 'worker_task_failed', message: `the worker task failed with ${name}${error instanceof Error ? `: ${error.message}` : ''}` };
}
