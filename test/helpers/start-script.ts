/**
 * Runs `scripts/start` (the README's first command) as a user would, and watches its output: ports it
 * was told or chose, the demo token it prints, the API's pid, and what the front proxy logged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from './product.ts';

/** A running scripts/start. */
export interface StartedScript {
  child: ChildProcess;
  /** Every output line so far (stdout and stderr). */
  lines: string[];
  /** Resolves with the first line matching `pattern` (rejects after `timeoutMs` or when scripts/start exits). */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL to the process group after 20 s. */
  stop(): Promise<void>;
}

/**
 * Starts `scripts/start` in its own process group with `env` added to this process's environment.
 * @param command - another command that runs it (e.g. `podman run … scripts/start`), default scripts/start itself
 */
export function runStartScript(env: Record<string, string>, command: [string, string[]] = [join(repoRoot, 'scripts/start'), []]): StartedScript {
  const child = spawn(command[0], command[1], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      for (const wake of waiters) wake();
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { for (const wake of waiters) wake(); resolve(code); }));
  const waitForLine = (pattern: RegExp, timeoutMs: number) => new Promise<string>((resolve, reject) => {
    const check = () => {
      const found = lines.find((l) => pattern.test(l));
      if (found !== undefined) { done(); resolve(found); } else if (child.exitCode !== null) { done(); reject(new Error(`scripts/start exited (${child.exitCode}) before a line matching ${pattern}:\n${lines.slice(-40).join('\n')}`)); }
    };
    const timer = setTimeout(() => { done(); reject(new Error(`no line matching ${pattern} within ${timeoutMs / 1000} s:\n${lines.slice(-40).join('\n')}`)); }, timeoutMs);
    const done = () => { clearTimeout(timer); waiters.delete(check); };
    waiters.add(check);
    check();
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    if (child.exitCode === null) try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
  };
  return { child, lines, waitForLine, exited, stop };
}

/** The pid of the latest `[entrypoint] started <tag> (pid N)` line. */
export function pidOf(lines: string[], tag: string): number {
  const line = lines.filter((l) => l.startsWith(`[entrypoint] started ${tag} (pid `)).at(-1) ?? '';
  return Number(/pid (\d+)/.exec(line)?.[1]);
}

/**
 * Listens on 127.0.0.1:`port` so that scripts/start finds it taken; a port already taken by someone
 * else is left as it is (it is taken either way). Returns a function that releases what was held.
 */
export async function holdPorts(ports: number[]): Promise<() => Promise<void>> {
  const held: Server[] = [];
  for (const port of ports) {
    await new Promise<void>((resolve) => {
      // A client that connects (a process expecting its own redis on 6379, say) is dropped at once, so
      // closing the holder never waits on a connection.
      const server = createServer((socket) => socket.destroy());
      server.once('error', () => resolve());
      server.listen(port, '127.0.0.1', () => { held.push(server); resolve(); });
    });
  }
  return async () => { await Promise.all(held.map((s) => new Promise((r) => s.close(r)))); };
}

/**
 * Local addresses that listen on TCP `port` (from /proc/net/tcp and tcp6), e.g. `127.0.0.1`, `0.0.0.0`, `::`.
 * Only this network namespace's sockets are listed.
 */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    for (const row of text.split('\n').slice(1)) {
      const [, local, , state] = row.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      found.push(hex.length === 8 ? hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join('.') : hex === '0'.repeat(32) ? '::' : `ipv6:${hex}`);
    }
  }
  return found;
}
