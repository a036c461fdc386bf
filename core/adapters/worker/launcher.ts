/**
 * The worker launcher: runs each turn or call in its own worker process (see ./worker-process.ts) within
 * the kind's slots, with the worker environment built from parsed settings (never this process's own).
 *
 * Source: ../shared/spec/platform-service.md § Rules 6–8; § Deployment settings (a worker reads none:
 * its environment is built from …); § Operational log lines ([worker]).
 */
import { tmpdir } from 'node:os';
import type { WorkerKind, WorkerLauncher, WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import type { WorkerProgram } from './program.ts';
import { WorkerSlots } from './slots.ts';
import { runWorkerProcess } from './worker-process.ts';

/**
 * What the launcher needs.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export interface WorkerLauncherDeps {
  /** How a worker starts (compiled executable or sources): see ./program.ts. */
  program: WorkerProgram;
  /** The whole environment of a worker of `kind` with `memoryMb`: `workerEnvironment(settings, …)` (core/config/worker-environment.ts). */
  environment(kind: WorkerKind, memoryMb: number): Record<string, string>;
  /** Workers of each kind at once (PLATFORM_WORKER_TURN_SLOTS, PLATFORM_WORKER_CALL_SLOTS). */
  slots: Record<WorkerKind, number>;
  /** Receives each `[worker] …` line (the caller prints it to standard output). */
  log(line: string): void;
  /** Where each worker's working directory is made (default the OS temp directory). */
  tempRoot?: string;
  /** Milliseconds between SIGTERM and SIGKILL when a run is cancelled, and after a worker answered (default 2000). */
  killGraceMs?: number;
}

/**
 * A run's options plus `entryFile`: tests and benchmarks only, another entry file (bundled and started
 * exactly like the worker, same flags, same channel) to probe the sandbox itself.
 *
 * Source: spec/platform-service.md § Rules 8
 */
export type LauncherRunOptions = WorkerRunOptions & { entryFile?: string };

/**
 * Creates a launcher; `run` waits for a slot of the run's kind, then starts the worker.
 * A run cancelled while waiting for its slot ends `signalled` without starting a worker (and without a log line).
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export function createWorkerLauncher(deps: WorkerLauncherDeps): WorkerLauncher & { run(options: LauncherRunOptions): Promise<WorkerOutcome>; slots: WorkerSlots } {
  const slots = new WorkerSlots(deps.slots);
  const processDeps = (kind: WorkerKind, memoryMb: number) => ({
    env: deps.environment(kind, memoryMb),
    tempRoot: deps.tempRoot ?? tmpdir(),
    killGraceMs: deps.killGraceMs ?? 2000,
    log: deps.log,
  });
  return {
    slots,
    async run(options: LauncherRunOptions): Promise<WorkerOutcome> {
      const release = await slots.acquire(options.kind, options.signal);
      if (!release) return { ended: 'failed', reason: 'signalled', message: `the ${options.kind} run was cancelled before its worker started` };
      try {
        const { memoryMb } = options.limits;
        return await runWorkerProcess(processDeps(options.kind, memoryMb), options, (workDir) => deps.program.command({ workDir, memoryMb, entryFile: options.entryFile }));
      } finally {
        release();
      }
    },
  };
}
