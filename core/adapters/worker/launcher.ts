/**
 * The worker launcher: runs each turn or call in its own worker process (see ./worker-process.ts) within
 * the kind's slots, with the worker environment built from parsed settings (never this process's own), in the
 * sandbox its isolation setting and the kernel allow (./sandbox.ts). On creation it ends the workers that a
 * stopped process left running (./worker-registry.ts) and probes the sandbox, printing one line when workers
 * run with weaker isolation or are refused.
 *
 * Source: spec/platform-service.md § Rules 6–8; § Deployment settings (a worker reads none:
 * its environment is built from …); § Operational log lines ([worker]); docs/decisions.md D17 § 3.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerKind, WorkerLauncher, WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import type { WorkerProgram } from './program.ts';
import { hasControllingTerminal } from '../runtime/process-scheduling.ts';
import { findProgram, planSandbox, probeNamespaces, type SandboxPlan, type WorkerIsolation } from './sandbox.ts';
import { WorkerSlots } from './slots.ts';
import { runWorkerProcess } from './worker-process.ts';
import { endLeftoverWorkers } from './worker-registry.ts';

/**
 * What the launcher needs.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export interface WorkerLauncherDeps {
  /** How a worker starts (compiled executable or sources): see ./program.ts. */
  program: WorkerProgram;
  /** The whole environment of a worker of `kind` with `memoryMb`: `workerEnvironment(settings, …)`
   * (core/config/worker-environment.ts). */
  environment(kind: WorkerKind, memoryMb: number): Record<string, string>;
  /** Workers of each kind at once (PLATFORM_WORKER_TURN_SLOTS, PLATFORM_WORKER_CALL_SLOTS). */
  slots: Record<WorkerKind, number>;
  /** Receives each `[worker] …` line (the caller prints it to standard output). */
  log(line: string): void;
  /** Where each worker's working directory is made (default the OS temp directory). */
  tempRoot?: string;
  /** Milliseconds between SIGTERM and SIGKILL when a run is cancelled, and after a worker answered (default 2000). */
  killGraceMs?: number;
  /**
   * PLATFORM_WORKER_INSPECT=on (never in production; the boot rules refuse it): each worker starts with an
   * inspector on a free loopback port and without the permission model; one `[worker] inspector …` line
   * names the port. Its sandbox keeps the host's network (the port must be reachable). Default off.
   */
  inspect?: boolean;
  /** PLATFORM_WORKER_ISOLATION (default `namespaces`): see ./sandbox.ts. */
  isolation?: WorkerIsolation;
  /** Whether this is a production process: without namespaces it refuses workers, not falls back (default false). */
  production?: boolean;
  /** The run folder of worker records (default `cairn-workers` in the OS temp directory). */
  runDir?: string;
  /** The PATH searched for bwrap and setpriv (the process's PATH variable; default /usr/local/bin:/usr/bin:/bin). */
  path?: string;
}

/**
 * A run's options plus `entryFile`: tests and benchmarks only, another entry file (bundled and started
 * exactly like the worker, same flags, same channel) to probe the sandbox itself; `onStarted` receives
 * the worker's process id once started; `log` receives this run's `[worker] …` lines instead of the
 * launcher's `log` (the worker host relays them to the dispatching process).
 *
 * Source: spec/platform-service.md § Rules 8, 10
 */
export type LauncherRunOptions = WorkerRunOptions & {
  entryFile?: string;
  onStarted?(pid: number): void;
  log?(line: string): void;
  /**
   * Resolve only once the worker has ended (its process exited, its `[worker] ended …` line logged, its directory
   * removed), not at its answer: the worker host, which relays that line before the outcome. Default false.
   */
  untilEnded?: boolean;
};

/**
 * A local launcher: the port's `run` taking {@link LauncherRunOptions}, its slots, and the sandbox its workers get.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export type LocalWorkerLauncher = WorkerLauncher & {
  run(options: LauncherRunOptions): Promise<WorkerOutcome>;
  slots: WorkerSlots;
  sandbox(): Promise<SandboxPlan>;
};

/**
 * Creates a launcher; `run` waits for a slot of the run's kind, then starts the worker, and resolves with the outcome
 * at the worker's answer while the slot stays held until its process has ended and its directory is removed
 * (docs/decisions.md D24 § 2).
 * A run cancelled while waiting for its slot ends `signalled` without starting a worker (and without a log line).
 * `sandbox()` resolves with the isolation workers get (after the one probe at creation).
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export function createWorkerLauncher(deps: WorkerLauncherDeps): LocalWorkerLauncher {
  const slots = new WorkerSlots(deps.slots);
  const inspect = deps.inspect ?? false;
  const { path } = deps;
  const runDir = deps.runDir ?? join(tmpdir(), 'cairn-workers');
  for (const line of endLeftoverWorkers(runDir)) deps.log(line);
  const isolation = deps.isolation ?? 'namespaces';
  const sandbox = (isolation === 'namespaces' ? probeNamespaces(path) : Promise.resolve(undefined)).then((probe) => {
    const { plan, line } = planSandbox(isolation, deps.production ?? false, probe);
    if (line) deps.log(line);
    return plan;
  });
  const setpriv = findProgram('setpriv', path);
  const newSession = hasControllingTerminal();
  const processDeps = (options: LauncherRunOptions, plan: SandboxPlan) => ({
    env: deps.environment(options.kind, options.limits.memoryMb),
    tempRoot: deps.tempRoot ?? tmpdir(),
    killGraceMs: deps.killGraceMs ?? 2000,
    log: options.log ?? deps.log,
    inspect,
    sandbox: plan,
    runDir,
    newSession,
    ...(setpriv ? { setpriv } : {}),
    ...(options.onStarted ? { onStarted: options.onStarted } : {}),
  });
  return {
    slots,
    reserve: (kind, signal) => slots.reserve(kind, signal),
    sandbox: () => sandbox,
    async run(options: LauncherRunOptions): Promise<WorkerOutcome> {
      const { memoryMb } = options.limits;
      const plan = await sandbox;
      const { entryFile } = options;
      const command = (workDir: string) => deps.program.command({ workDir, memoryMb, entryFile, inspect });
      return slots.runHeld(options, async () => {
        const held = await runWorkerProcess(processDeps(options, plan), options, command);
        if (options.untilEnded) await held.ended;
        return held;
      });
    },
  };
}
