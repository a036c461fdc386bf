/**
 * A worker dies with its dispatcher: a process standing in for the dispatcher (test/fixtures/worker-parent.ts,
 * on Bun) starts a busy worker and is killed with SIGKILL; every process of the worker's tree is then gone, in
 * the namespace sandbox (bubblewrap's --die-with-parent) and under permission-only isolation (setpriv's
 * parent-death signal). And a launcher starting where a stopped process left a worker running ends it (the run
 * folder's record), leaving alone the workers of a process still running.
 * Source: spec/platform-service.md § Rules 6–7; docs/decisions.md D17 § 3 (a worker dies with its
 * dispatcher).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerLauncher } from '../../core/adapters/worker/index.ts';
import { processStartTime } from '../../core/adapters/worker/worker-registry.ts';
import { bunPath } from '../helpers/product.ts';
import { repoRoot } from '../fixtures/worker-launcher.ts';

const runDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of runDirs) rmSync(dir, { recursive: true, force: true });
});

function newRunDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-orphans-'));
  runDirs.push(dir);
  return dir;
}

/** `pid` and all its descendants, as /proc lists each process's children. */
function tree(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i += 1) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${found[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const listed = readFileSync(`/proc/${found[i]}/task/${task}/children`, 'utf8').split(' ');
        for (const child of listed) if (child.trim()) found.push(Number(child));
      } catch {
        // ended meanwhile
      }
    }
  }
  return found;
}

/** A process's state letter (R, S, Z…), or undefined once it has ended (its /proc entry may go between reads). */
function state(pid: number): string | undefined {
  try {
    return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}
const alive = (pid: number) => existsSync(`/proc/${pid}`) && ![undefined, 'Z'].includes(state(pid));
/** A process's command line, or [] once it has ended. */
function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Waits (every 50 ms, at most 20 s) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Starts the stand-in dispatcher; resolves with it and its worker's pid once the worker runs. */
type BusyParent = { parent: ChildProcess; worker: number; said(): string };
async function parentWithBusyWorker(isolation: string): Promise<BusyParent> {
  const fixture = join(repoRoot, 'test/fixtures/worker-parent.ts');
  const options = { stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[], env: { PATH: process.env.PATH } };
  const parent = spawn(bunPath, [fixture, isolation, newRunDir()], options);
  children.push(parent);
  let said = '';
  for (const stream of [parent.stdout!, parent.stderr!]) {
    stream.on('data', (chunk: Buffer) => (said += chunk.toString()));
  }
  await until(() => /^worker \d+$/m.test(said) || parent.exitCode !== null);
  const worker = Number(/^worker (\d+)$/m.exec(said)?.[1]);
  if (!worker) throw new Error(`the stand-in dispatcher started no worker:\n${said}`);
  return { parent, worker, said: () => said };
}

describe('a worker dies with its dispatcher', () => {
  it.each([
    'namespaces', 'permission-only',
  ])('kill -9 of the dispatcher, worker busy (%s), leaves none', async (isolation) => {
    const { parent, worker, said } = await parentWithBusyWorker(isolation);
    expect(said()).toContain(`sandbox ${isolation}`);
    // Busy: its hook asked the broker, then loops in native code (the runtime's process is running, not waiting).
    await until(() => /^busy$/m.test(said()));
    const runtime = () => tree(worker).find((pid) => {
      const args = commandLine(pid);
      return (args[0] ?? '').endsWith('/node') && args.some((arg) => arg.includes('worker-probes'));
    });
    // The state the wait saw: a second sample may catch the busy runtime between two time slices ('S').
    let seen: string | undefined;
    await until(() => { const pid = runtime(); seen = pid === undefined ? undefined : state(pid); return seen === 'R'; });
    const processes = tree(worker);
    expect(processes.every(alive)).toBe(true);
    expect(seen).toBe('R');
    parent.kill('SIGKILL');
    await until(() => !processes.some(alive));
    expect(processes.filter(alive)).toEqual([]);
  }, 60_000);

  it('a launcher starting after a stopped process ends the worker it left, not a live owner\'s', async () => {
    const runDir = newRunDir();
    const sleeper = () => {
      const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
      children.push(child);
      return child.pid!;
    };
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    const leftover = sleeper();
    const kept = sleeper();
    await until(() => processStartTime(leftover) !== undefined && processStartTime(kept) !== undefined);
    const workDir = mkdtempSync(join(tmpdir(), 'cairn-worker-'));
    const record = (pid: number, owner: number, ownerStarted: string, dir: string) => {
      const content = { pid, started: processStartTime(pid), owner, ownerStarted, workDir: dir };
      writeFileSync(join(runDir, `${pid}.json`), JSON.stringify(content));
    };
    record(leftover, gone.pid!, '1', workDir);
    record(kept, process.pid, processStartTime(process.pid)!, join(tmpdir(), 'cairn-worker-not-this-one'));
    expect([alive(leftover), alive(kept)]).toEqual([true, true]);
    const lines: string[] = [];
    createWorkerLauncher({
      program: { command: async () => ({ command: 'true', args: [] }) }, environment: () => ({}),
      slots: { turn: 1, call: 1 }, log: (line) => lines.push(line), runDir, isolation: 'permission-only',
    });
    expect(lines).toContain(`[worker] ended leftover worker ${leftover} of a stopped process (pid ${gone.pid})`);
    await until(() => !alive(leftover));
    expect(alive(leftover)).toBe(false);
    expect(existsSync(workDir)).toBe(false);
    expect(readdirSync(runDir)).toEqual([`${kept}.json`]);
    expect(alive(kept)).toBe(true);
    expect(spawnSync('kill', ['-0', String(kept)]).status).toBe(0);
  });
});
