/**
 * The worker sandbox: each worker runs under bubblewrap (`bwrap`, Debian's bubblewrap) in its own user, PID,
 * network, IPC, UTS and cgroup namespaces, its own session, with every capability dropped, dying with the
 * process that started it, and seeing only what it needs: /usr (the system libraries), its runtime binary and
 * program files (read-only), its own working directory (read-write), a minimal /dev and its own /proc. So it
 * has no network (its loopback is its own: no TCP, UDP or abstract Unix socket of the host is reachable), no
 * Unix socket outside its folder, and cannot see, signal or debug any other process (the parent included).
 * Node's permission model stays on inside it as a second layer.
 *
 * Isolation (PLATFORM_WORKER_ISOLATION): `namespaces` (default) needs the kernel to allow unprivileged
 * namespaces; where it refuses them (some rootless containers), a production process refuses to start workers
 * and says why, other processes fall back to `permission-only` with a warning line. `permission-only` (an
 * explicit opt-out) runs workers under the permission model alone, with a warning line.
 *
 * Source: spec/platform-service.md § Rules 6, 8; docs/decisions.md D17 § 3 (the worker sandbox denies what it
 * promises).
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { WorkerCommand } from './program.ts';

/**
 * How workers are kept apart: `namespaces` (bubblewrap) or `permission-only` (Node's permission model alone).
 *
 * Source: spec/platform-service.md § Rules 8; § Deployment settings (PLATFORM_WORKER_ISOLATION)
 */
export type WorkerIsolation = 'namespaces' | 'permission-only';

/**
 * What a launcher does with its workers: wrap them in bubblewrap at `bwrap`, run them under the permission
 * model only, or refuse every worker with `reason` (production without namespaces).
 *
 * Source: spec/platform-service.md § Rules 8
 */
export type SandboxPlan =
  | { mode: 'namespaces'; bwrap: string }
  | { mode: 'permission-only' }
  | { mode: 'refused'; reason: string };

/** Whether this machine runs namespaced sandboxes: bubblewrap's path, or why not. */
export type NamespaceProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

/** The top-level system directories a dynamically linked runtime may need besides /usr. */
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * Finds the program `name` (e.g. `bwrap`, `setpriv`) on `path` (the PATH variable's value; default the usual
 * system directories).
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function findProgram(name: string, path: string | undefined): string | undefined {
  for (const dir of (path || '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Tries a namespaced sandbox once (bwrap with the workers' own namespace flags running `/usr/bin/true`).
 * @returns bubblewrap's path, or the reason namespaces are not available (bubblewrap missing, or the kernel's
 *   refusal as bubblewrap words it)
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function probeNamespaces(path?: string): Promise<NamespaceProbe> {
  const bwrap = findProgram('bwrap', path);
  if (!bwrap) {
    const reason = 'bubblewrap (bwrap) is not installed: install the Debian package bubblewrap';
    return Promise.resolve({ ok: false, reason });
  }
  const trial = existsSync('/usr/bin/true') ? '/usr/bin/true' : '/bin/true';
  const args = [...namespaceFlags(false), ...systemBinds(), '--', trial];
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: 10_000, env: {} }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, bwrap });
      const said = String(stderr).trim().split('\n')[0]?.slice(0, 300) || error.message.split('\n')[0];
      resolve({ ok: false, reason: `the kernel refused the namespaces bubblewrap asked for (${said})` });
    });
  });
}

/**
 * The plan for `requested` isolation given the probe, and the line to print about it (a warning or a refusal),
 * if any. Production with `namespaces` unavailable refuses workers; elsewhere it falls back to permission-only.
 *
 * Source: spec/platform-service.md § Rules 8; § Deployment settings (PLATFORM_WORKER_ISOLATION)
 */
export function planSandbox(
  requested: WorkerIsolation,
  production: boolean,
  probe: NamespaceProbe | undefined,
): { plan: SandboxPlan; line?: string } {
  if (requested === 'permission-only') {
    const line = '[worker] warning: PLATFORM_WORKER_ISOLATION=permission-only: workers run without network and PID ' +
      'namespaces, under the permission model alone (they can reach the network and signal processes of this user)';
    return { plan: { mode: 'permission-only' }, line };
  }
  if (probe?.ok) return { plan: { mode: 'namespaces', bwrap: probe.bwrap } };
  const why = probe?.reason ?? 'namespaces were not probed';
  if (production) {
    const reason = `workers need network and PID namespaces and ${why}; ` +
      'run the container with user namespaces allowed, ' +
      'or set PLATFORM_WORKER_ISOLATION=permission-only to accept the weaker isolation';
    return { plan: { mode: 'refused', reason }, line: `[worker] refusing to start workers: ${reason}` };
  }
  const line = `[worker] warning: ${why}; outside production workers run under the permission model alone ` +
    '(no network or PID namespace)';
  return { plan: { mode: 'permission-only' }, line };
}

/**
 * bubblewrap's namespace, session and capability flags; `shareNet` keeps the host network (inspector runs only);
 * `newSession` (default true) cuts the sandbox off from a controlling terminal (`--new-session`), which also puts it
 * in a scheduling group of its own where the kernel groups by session (../runtime/process-scheduling.ts).
 */
function namespaceFlags(shareNet: boolean, newSession = true): string[] {
  const net = shareNet ? ['--share-net'] : [];
  const session = newSession ? ['--new-session'] : [];
  return ['--unshare-all', ...net, '--die-with-parent', ...session, '--cap-drop', 'ALL'];
}

/** The system binds, read once per process (by the launcher's probe): the system's directories do not change. */
let systemBindsOnce: readonly string[] | undefined;

/**
 * Read-only /usr with the top-level links into it (or their own read-only binds), the loader cache, /dev and /proc;
 * looked up once per process, not per worker (docs/decisions.md D24 § 2).
 */
function systemBinds(): readonly string[] {
  systemBindsOnce ??= readSystemBinds();
  return systemBindsOnce;
}

function readSystemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const path of SYSTEM_LINKS) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat.isDirectory()) args.push('--ro-bind', path, path);
  }
  args.push('--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache', '--dev', '/dev', '--proc', '/proc');
  return args;
}

/**
 * `command` wrapped in bubblewrap: the system binds, its `reads` (runtime and program files, each at its real
 * path) read-only, `workDir` read-write and current. The runtime is started by its real path. `newSession`
 * (default true): a session of its own; the launcher passes false where it has no controlling terminal, so the
 * worker stays in its launcher's scheduling group and niceness.
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function sandboxCommand(
  bwrap: string,
  command: WorkerCommand,
  options: { workDir: string; shareNet?: boolean; newSession?: boolean },
): WorkerCommand {
  const real = realpathSync(command.command);
  const reads = new Set([real, ...(command.reads ?? []).map((path) => realpathSync(path))]);
  const args = [...namespaceFlags(options.shareNet ?? false, options.newSession), ...systemBinds()];
  for (const path of reads) args.push('--ro-bind', path, path);
  // bubblewrap sets PWD to this directory; the worker drops it before checking its environment (bins/worker/run.ts).
  args.push('--bind', options.workDir, options.workDir, '--chdir', options.workDir, '--', real, ...command.args);
  return { command: bwrap, args };
}
