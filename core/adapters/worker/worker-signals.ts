/**
 * Starting and ending a worker process within its sandbox: the command under the launcher's plan (bubblewrap, or
 * setpriv's parent-death signal under permission-only), and the signal that ends it (its namespace's init, or
 * its process group).
 *
 * Source: spec/platform-service.md § Rules 6–8; docs/decisions.md D17 § 3.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { childrenOf } from '../runtime/process-memory.ts';
import type { WorkerCommand } from './program.ts';
import { sandboxCommand, type SandboxPlan } from './sandbox.ts';

/**
 * `command` under the launcher's sandbox: bubblewrap (sharing the host's network only with an inspector), or
 * setpriv's parent-death signal (SIGKILL) when setpriv is installed. A missing program is left as it is (its start
 * then fails as such: ENOENT).
 *
 * Source: docs/decisions.md D17 § 3
 */
export function isolate(
  deps: { sandbox?: SandboxPlan; setpriv?: string; inspect?: boolean; newSession?: boolean },
  command: WorkerCommand,
  workDir: string,
): WorkerCommand {
  if (!existsSync(command.command)) return command;
  if (deps.sandbox?.mode === 'namespaces') {
    return sandboxCommand(deps.sandbox.bwrap, command, {
      workDir,
      shareNet: deps.inspect,
      newSession: deps.newSession,
    });
  }
  if (deps.setpriv) {
    return { command: deps.setpriv, args: ['--pdeathsig', 'KILL', '--', command.command, ...command.args] };
  }
  return command;
}

/**
 * Sends `signal` to the worker's process group (it leads one), else to the worker alone. A sandboxed worker's
 * namespace is ended through its init (bubblewrap's second process, which takes every process of the namespace
 * with it): SIGKILL, since a namespace's init ignores other signals from outside; bubblewrap's first process then
 * exits by itself, having reaped it (killing the first process first would leave the init to the machine's init as
 * a zombie).
 *
 * Source: docs/decisions.md D17 § 3
 */
export function signalWorker(child: ChildProcess, sandboxed: boolean, signal: NodeJS.Signals): void {
  const inits = sandboxed ? childrenOf(child.pid!) : [];
  for (const init of inits) {
    try {
      process.kill(init, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (inits.length > 0) return;
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}
