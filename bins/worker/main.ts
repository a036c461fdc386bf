/**
 * The worker program: one process per turn or call, started by the worker launcher
 * (core/adapters/worker) under Node's permission model. It reads no setting from its environment (it
 * only checks that nothing but the allowlist is there); its token and job arrive on its channel.
 * Compiled by scripts/build into dist/worker, a Node single executable application whose start arguments
 * carry the permission flags.
 *
 * Source: spec/platform-service.md § Rules 6–8; § Deployment settings (a worker reads none).
 */
import { runWorker } from './run.ts';
import { workerTasks } from './tasks.ts';

runWorker({
  tasks: workerTasks,
  env: process.env,
  io: { input: process.stdin, output: process.stdout, exit: (code) => process.exit(code) },
});
