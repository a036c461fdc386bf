/**
 * Worker processes: the launcher (slots, limits, channel, permission model) and the programs it starts.
 *
 * Source: ../shared/spec/platform-service.md § Rules 6–8.
 */
export { createWorkerLauncher, type LauncherRunOptions, type WorkerLauncherDeps } from './launcher.ts';
export { bundledWorkerProgram, executableWorkerProgram, removeWorkerBundles, SEA_PERMISSION_FLAGS, workerProgramFor, type WorkerCommand, type WorkerProgram } from './program.ts';
export { WorkerSlots } from './slots.ts';
