/**
 * Worker hosts: the listener that runs workers sent over TLS (both sides proving PLATFORM_WORKER_HOST_KEY)
 * and the remote launcher a dispatching process uses when PLATFORM_WORKER_HOST names one.
 *
 * Source: spec/platform-service.md § Rules 10.
 */
export { type RunningWorkerHost, startWorkerHost, type WorkerHostOptions } from './host-server.ts';
export { createRemoteWorkerLauncher, type RemoteWorkerLauncherOptions } from './remote-launcher.ts';
export type { HostLauncher } from './host-run.ts';
