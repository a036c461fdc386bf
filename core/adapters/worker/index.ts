/**
 * Worker processes: the launcher (slots, limits, channel, sandbox, permission model) and the programs it starts.
 *
 * Source: spec/platform-service.md § Rules 6–8.
 */
export {
  createWorkerLauncher,
  type LauncherRunOptions,
  type LocalWorkerLauncher,
  type WorkerLauncherDeps,
} from './launcher.ts';
export { planSandbox, probeNamespaces, type SandboxPlan, type WorkerIsolation } from './sandbox.ts';
export {
  bundledWorkerProgram,
  executableWorkerProgram,
  removeWorkerBundles,
  SEA_PERMISSION_FLAGS,
  type WorkerCommand,
  type WorkerProgram,
  workerProgramFor,
} from './program.ts';
export { WorkerSlots } from './slots.ts';
