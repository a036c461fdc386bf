/**
 * A scale-out cluster for chaos tests: API processes and dispatchers (bins/api/main.ts, bins/dispatcher/main.ts on
 * Bun) on one shared queue store (QUEUE_URL) and one shared document store (one embedded SQLite file every process
 * opens; the adapter writes inside `BEGIN IMMEDIATE` with a busy timeout, so processes sharing the file lose no
 * update) and one file object store. Each process sits in a slot that can be killed with SIGKILL and started again
 * (an API on the same port), so clients keep two fixed addresses. Source: docs/architecture.md § Processes
 * ("More of each on more machines share one MongoDB, one Redis and one S3").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { bunPath, repoRoot } from './product.ts';

/** Which program a slot runs. */
export type ChaosRole = 'api' | 'dispatcher';

/** One process slot of the cluster. */
export interface ChaosSlot {
  role: ChaosRole;
  name: string;
  /** The API's base URL (`http://127.0.0.1:<port>`, the same across restarts); empty for a dispatcher. */
  url: string;
  /** Incremented at every kill: a request begun under an older generation may have been cut by a kill. */
  generation: number;
  /** How often it was killed with SIGKILL. */
  kills: number;
  /** How long each start took until the ready line (ms). */
  startMs: number[];
  /** Exits nobody asked for (neither a kill nor the cluster's stop), each with its code or signal. */
  crashes: string[];
  /** True from spawn until its ready line was printed; false once ready or dead. */
  starting: boolean;
  /** True once its ready line was printed, until it is killed. */
  ready: boolean;
  /** The last 64 KiB its processes printed (all generations, each start marked). */
  output(): string;
}

/** A running cluster. */
export interface ChaosCluster {
  dir: string;
  docdbPath: string;
  apis: ChaosSlot[];
  dispatchers: ChaosSlot[];
  /** Starts the slot's process and waits for its ready line (throws with its output when it exits first or in 60 s). */
  start(slot: ChaosSlot): Promise<void>;
  /** Kills the slot's process with SIGKILL (no stop handler runs) and waits for it to be gone. */
  kill(slot: ChaosSlot): Promise<void>;
  /** Stops every process with SIGTERM (SIGKILL after 20 s) and removes the stores' directory. */
  stop(): Promise<void>;
}

/** Options of {@link startChaosCluster}. */
export interface ChaosClusterOptions {
  queueUrl: string;
  apis: number;
  dispatchers: number;
  /** Added to (and overriding) every process's environment, e.g. PLATFORM_CONFIG. */
  env?: Record<string, string>;
}

const ready: Record<ChaosRole, string> = { api: 'api listening on', dispatcher: 'dispatcher running: queues' };
const keptOutput = 64 * 1024;

/** Starts `apis` API processes and `dispatchers` dispatchers on one set of stores, one after another. */
export async function startChaosCluster(options: ChaosClusterOptions): Promise<ChaosCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-chaos-'));
  const docdbPath = join(dir, 'docdb.sqlite');
  const children = new Map<ChaosSlot, ChildProcess>();
  const printed = new Map<string, string>();
  /** Processes this helper is ending (a kill or the stop): their exits are no crash. */
  const ending = new WeakSet<ChildProcess>();
  const baseEnv = (slot: ChaosSlot): Record<string, string> => {
    const home = join(dir, slot.name);
    mkdirSync(home, { recursive: true });
    return {
      PATH: process.env.PATH ?? '', HOME: home, NODE_ENV: 'development', DOCDB_URI: `sqlite:${docdbPath}`,
      OBJSTORE_ENDPOINT: `file://${dir}/objects`, OBJSTORE_BUCKET: 'cairn', QUEUE_URL: options.queueUrl,
      PLATFORM_SCRATCH_DIR: join(home, 'scratch'), API_HOST: '127.0.0.1',
      // One transpiler cache for every start: a restart then takes about half the time.
      BUN_RUNTIME_TRANSPILER_CACHE_PATH: join(dir, 'bun-cache'),
      ...(slot.url ? { PORT: new URL(slot.url).port } : {}), ...options.env,
    };
  };
  const slot = (role: ChaosRole, name: string, url: string): ChaosSlot => ({
    role, name, url, generation: 0, kills: 0, startMs: [], crashes: [], starting: false, ready: false,
    output: () => printed.get(name) ?? '',
  });
  const slots: ChaosSlot[] = [];
  for (let i = 0; i < options.apis; i += 1) {
    slots.push(slot('api', `api-${i + 1}`, `http://127.0.0.1:${await freePort()}`));
  }
  for (let i = 0; i < options.dispatchers; i += 1) slots.push(slot('dispatcher', `dispatcher-${i + 1}`, ''));

  const start = async (s: ChaosSlot) => {
    if (children.has(s)) throw new Error(`${s.name} is already running`);
    const program = s.role === 'api'
      ? ['--max-http-header-size=32768', join(repoRoot, 'bins/api/main.ts')]
      : [join(repoRoot, 'bins/dispatcher/main.ts')];
    const child = spawn(bunPath, program, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: baseEnv(s) });
    children.set(s, child);
    s.starting = true;
    const append = (text: string) => {
      const all = (printed.get(s.name) ?? '') + text;
      printed.set(s.name, all.length > keptOutput ? all.slice(-keptOutput) : all);
    };
    child.on('error', (error) => append(`\n--- ${s.name} could not be started: ${error.message} ---\n`));
    append(`\n--- ${s.name} started (pid ${child.pid}, generation ${s.generation}) ---\n`);
    let seen = '';
    const wasReady = new Promise<boolean>((resolve) => {
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        append(text);
        seen = (seen + text).slice(-4096);
        if (seen.includes(ready[s.role])) resolve(true);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', () => resolve(false));
      setTimeout(() => resolve(false), 60_000).unref();
    });
    child.once('exit', (code, signal) => {
      append(`\n--- ${s.name} pid ${child.pid} exited (${signal ?? code}) ---\n`);
      if (!ending.has(child)) s.crashes.push(`pid ${child.pid}: ${signal ?? code}`);
      if (children.get(s) === child) children.delete(s);
      s.ready = false;
      s.starting = false;
    });
    const startedAt = Date.now();
    const ok = await wasReady;
    s.starting = false;
    if (ok) s.startMs.push(Date.now() - startedAt);
    if (!ok) {
      if (children.get(s) === child) {
        ending.add(child);
        child.kill('SIGKILL');
      }
      throw new Error(`${s.name} did not become ready:\n${s.output().slice(-4000)}`);
    }
    if (children.get(s) === child) s.ready = true;
  };

  const kill = async (s: ChaosSlot) => {
    const child = children.get(s);
    s.generation += 1;
    s.ready = false;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    s.kills += 1;
    ending.add(child);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };

  const stop = async () => {
    await Promise.all([...children.entries()].map(async ([s, child]) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      ending.add(child);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      s.ready = false;
    }));
    rmSync(dir, { recursive: true, force: true });
  };

  const cluster: ChaosCluster = {
    dir, docdbPath, start, kill, stop,
    apis: slots.filter((s) => s.role === 'api'), dispatchers: slots.filter((s) => s.role === 'dispatcher'),
  };
  try {
    for (const s of slots) await start(s);
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** Options of {@link killWhileRunning}. */
export interface KillOptions {
  /** About how often to kill (ms; each pause is ± 20 %). */
  everyMs: number;
  /** Skip a kill while another slot of the role is starting, so one process of the role serves at any time. */
  keepOneUp: boolean;
  /** Go on after `until` until the role had this many kills, for at most 60 s more. */
  minKills: number;
}

/**
 * Kills a process of `slots` with SIGKILL about every `everyMs` (the ready one killed least often; a slot still
 * starting is never killed) and starts it again at once, until `until` settled (and `minKills` were reached).
 * How often a process dies depends on how fast the machine starts one: the slots count their kills.
 * @returns once every slot is ready again: the starts that failed (each was tried again 0.5 s later)
 */
export async function killWhileRunning(
  cluster: ChaosCluster, slots: ChaosSlot[], options: KillOptions, until: Promise<unknown>,
): Promise<string[]> {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let ended: number | undefined;
  void until.finally(() => { ended = Date.now(); });
  const kills = () => slots.reduce((n, s) => n + s.kills, 0);
  const done = () => ended !== undefined && (kills() >= options.minKills || Date.now() - ended > 60_000);
  const restarts: Promise<void>[] = [];
  const failures: string[] = [];
  const restart = (slot: ChaosSlot): Promise<void> => cluster.start(slot).catch(async (error: Error) => {
    failures.push(`${slot.name}: ${error.message.split('\n')[0]}`);
    await pause(500);
    if (!slot.ready && !slot.starting) await restart(slot);
  });
  while (!done()) {
    await pause(options.everyMs * (0.8 + Math.random() * 0.4));
    if (done()) break;
    const slot = slots.filter((s) => s.ready).sort((a, b) => a.kills - b.kills || Math.random() - 0.5)[0];
    if (!slot || (options.keepOneUp && !slots.every((s) => s.ready))) continue;
    await cluster.kill(slot);
    restarts.push(restart(slot));
  }
  await Promise.all(restarts);
  return failures;
}
