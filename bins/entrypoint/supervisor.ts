/**
 * Process supervisor of the all-in-one mode: starts each child, tags its output lines, starts it
 * again 2 s after it exits, and stops every child (by PID) on stop(): SIGTERM, SIGKILL after
 * {@link stopKillAfterMs}; a child marked `stopLast` (the queue store) only once the others have exited, so a
 * stopping dispatcher can still settle its jobs in it.
 *
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Rules 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { readableLogLine } from '../../core/adapters/log/readable-lines.ts';
import { setAutogroupNiceness } from '../../core/adapters/runtime/process-scheduling.ts';

/** A supervised child. */
export interface ChildSpec {
  /** Output tag without brackets, e.g. `api`. */
  tag: string;
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Niceness to run it at (0 default; higher yields the CPU to the others). Processes it starts inherit it: the
   * dispatcher's workers, so background turns never starve the API's answers. A child with a niceness runs in a
   * session of its own (no controlling terminal, so its workers need none of their own) whose scheduling group gets
   * the same niceness (core/adapters/runtime/process-scheduling.ts).
   */
  niceness?: number;
  /** Stopped only after every other child has exited (the queue store the others use while stopping). */
  stopLast?: boolean;
}

/**
 * How long a stop waits after SIGTERM before SIGKILL (ms): 100 s, within the stop timeout of 120 s
 * (platform-service.md § Limits) and past the dispatcher's own bound (its grace, at most 90 s, then 15 s).
 */
export const stopKillAfterMs = 100_000;

/** Niceness of the all-in-one dispatcher (and so of its workers): 10, below the API, proxy and stores at 0. */
export const DISPATCHER_NICENESS = 10;

/** Delay before a child that exited is started again (ms). */
export const restartDelayMs = 2000;

/** Lines a process prints already tagged with a tag of the spec's own; they pass through unchanged. */
const ownTags = /^\[(config|data-updates|credentials|worker|worker-host)\] /;

/** Children's pino JSON lines are shown readable when this process's stdout is a terminal (JSON otherwise). */
const readable = process.stdout.isTTY === true;

/**
 * Writes one tagged line to stdout (a line that carries a spec tag of its own keeps it alone); a pino JSON line is
 * made readable at a terminal (core/adapters/log/readable-lines.ts).
 */
export function tagged(tag: string, line: string): void {
  const shown = readable ? readableLogLine(line, true) : line;
  process.stdout.write(ownTags.test(shown) ? `${shown}\n` : `[${tag}] ${shown}\n`);
}

/** How the supervisor runs its children. */
export interface SuperviseOptions {
  /** How long a stop waits after SIGTERM before SIGKILL (ms; default {@link stopKillAfterMs}). */
  killAfterMs?: number;
  /**
   * The path of util-linux `setpriv`: given, each child starts through `setpriv --pdeathsig TERM`, so it gets SIGTERM
   * when this process dies however it dies (a `kill -9` too) instead of running on without it, and a queue store
   * left running would share its append-only file with the next entrypoint's. Default none (Linux only).
   */
  setpriv?: string;
}

/** Gives `pid` (a child in a session of its own) and its session's scheduling group the niceness `niceness`. */
function lowerPriority(tag: string, pid: number, niceness: number): void {
  try {
    setPriority(pid, niceness);
  } catch (error) {
    tagged('entrypoint', `${tag} runs at normal priority: ${(error as Error).message}`);
  }
  void setAutogroupNiceness(pid, niceness).then((result) => {
    if (!result.set && !result.unsupported) {
      tagged('entrypoint', `${tag}'s session group runs at normal priority: ${result.reason}`);
    }
  });
}

/** Runs `specs`; returns a stop function that ends every child and resolves once all have exited. */
export function supervise(specs: ChildSpec[], options: SuperviseOptions = {}): {
  stop(): Promise<void>; pids(): Record<string, number | undefined>;
} {
  let stopping = false;
  const running = new Map<string, ChildProcess>();
  const last = new Set(specs.filter((s) => s.stopLast).map((s) => s.tag));
  const end = (child: ChildProcess) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? stopKillAfterMs).unref();
  });
  const start = (spec: ChildSpec) => {
    // setpriv sets the signal, then becomes the child (exec): the child's pid is the one started here.
    const [command, args] = options.setpriv
      ? [options.setpriv, ['--pdeathsig', 'TERM', '--', spec.command, ...spec.args]]
      : [spec.command, spec.args];
    const detached = Boolean(spec.niceness);
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
    const child = spawn(command, args, { env: spec.env as NodeJS.ProcessEnv, cwd: spec.cwd, stdio, detached });
    running.set(spec.tag, child);
    if (child.pid && spec.niceness) lowerPriority(spec.tag, child.pid, spec.niceness);
    if (child.pid) tagged('entrypoint', `started ${spec.tag} (pid ${child.pid}${spec.niceness ? `, niceness ${spec.niceness}` : ''})`);
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream! }).on('line', (line) => tagged(spec.tag, line));
    child.on('exit', (code, signal) => {
      running.delete(spec.tag);
      if (stopping) return;
      tagged('entrypoint', `${spec.tag} exited (${signal ?? `code ${code}`}); starting it again in ${restartDelayMs / 1000} s`);
      setTimeout(() => { if (!stopping) start(spec); }, restartDelayMs);
    });
    child.on('error', (error) => tagged('entrypoint', `${spec.tag} could not start: ${error.message}`));
  };
  specs.forEach(start);
  return {
    pids: () => Object.fromEntries([...running].map(([tag, child]) => [tag, child.pid])),
    async stop() {
      stopping = true;
      const children = [...running.entries()];
      await Promise.all(children.filter(([tag]) => !last.has(tag)).map(([, child]) => end(child)));
      await Promise.all(children.filter(([tag]) => last.has(tag)).map(([, child]) => end(child)));
    },
  };
}
